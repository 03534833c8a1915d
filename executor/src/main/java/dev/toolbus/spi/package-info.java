/**
 * API for implementers: every interface a bus, a policy, a tool source or an approval step implements
 * to plug into an executor ({@link dev.toolbus.spi.ToolBus}, {@link dev.toolbus.spi.BusMessage},
 * {@link dev.toolbus.spi.ToolPolicy}, {@link dev.toolbus.spi.ToolDispatch}, {@link dev.toolbus.spi.CallGate},
 * {@link dev.toolbus.spi.SkillProvider}, {@link dev.toolbus.spi.RateLimitStore}, {@link dev.toolbus.spi.BusSource},
 * {@link dev.toolbus.spi.CallRules}), the turn state a bus may
 * bring ({@link dev.toolbus.spi.TurnState} and its facets {@link dev.toolbus.spi.TurnLedger},
 * {@link dev.toolbus.spi.CallJournal}, {@link dev.toolbus.spi.ControlRequests},
 * {@link dev.toolbus.spi.SessionGrants}, {@link dev.toolbus.spi.CutResults}, bounded by
 * {@link dev.toolbus.spi.TurnStateSettings}), who sends a turn ({@link dev.toolbus.spi.Principal}), and the
 * values they exchange, with the helpers implementers build on: {@link dev.toolbus.spi.DrainLoop} (the receive
 * loop of a broker adapter) and {@link dev.toolbus.spi.Checks} (argument checks for their builders). Below the
 * engine: nothing here depends on the executor, the policy or the buses.
 */
package dev.toolbus.spi;
