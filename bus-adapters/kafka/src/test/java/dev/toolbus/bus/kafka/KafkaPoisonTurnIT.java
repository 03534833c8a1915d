package dev.toolbus.bus.kafka;

import dev.toolbus.bus.tck.AbstractBusPoisonTurnTests;
import dev.toolbus.bus.tck.BrokerFixture;

/** Poison turns on Kafka: each owner of the partition that took the record without completing it counts. */
class KafkaPoisonTurnIT extends AbstractBusPoisonTurnTests {

    @Override
    protected BrokerFixture openBroker() {
        return KafkaFixture.require();
    }

    @Override
    protected String poisonReason(int deliveries) {
        return "delivered " + deliveries + " times without completing (maxDeliveries 2)";
    }
}
