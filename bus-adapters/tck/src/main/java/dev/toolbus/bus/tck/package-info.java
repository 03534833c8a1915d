/**
 * The bus adapters' contract suite (TCK) and the test support it shares. An adapter's tests subclass
 * the abstract suites ({@link dev.toolbus.bus.tck.AbstractBusDeliveryTests},
 * {@link dev.toolbus.bus.tck.AbstractBusControlTests}, {@link dev.toolbus.bus.tck.AbstractBusPoisonTurnTests},
 * {@link dev.toolbus.bus.tck.AbstractBusIdempotentTurnTests}, {@link dev.toolbus.bus.tck.AbstractBusTracingTests},
 * {@link dev.toolbus.bus.tck.AbstractBusKillRecoveryTests}, {@link dev.toolbus.bus.tck.AbstractBusFaultsTests},
 * {@link dev.toolbus.bus.tck.AbstractNodeExampleClientTests}) with a {@link dev.toolbus.bus.tck.BrokerFixture}
 * for their broker, and answer each suite's few hooks where the brokers differ by design. Test scope
 * only; not API.
 */
package dev.toolbus.bus.tck;
