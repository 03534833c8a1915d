package dev.toolbus.bus.tck;

import dev.toolbus.executor.state.InMemoryTurnState;
import dev.toolbus.spi.TurnState;
import dev.toolbus.spi.TurnStateSettings;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** The turn-state contract, kept by the executor's in-memory state on a clock the test moves. */
class InMemoryTurnStateTest extends AbstractTurnStateTests {

    private final AtomicLong clockMs = new AtomicLong(1_767_225_600_000L);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @Override
    protected TurnState newState(TurnStateSettings settings) {
        return InMemoryTurnState.builder().settings(settings).nanoClock(() -> clockMs.get() * 1_000_000)
                .epochMillis(clockMs::get).meters(meters).build();
    }

    @Override
    protected void advance(Duration d) {
        clockMs.addAndGet(d.toMillis());
    }

    @Override
    protected long nowMs() {
        return clockMs.get();
    }

    @Override
    protected Double gauge(TurnState state, String name, String facet) {
        Gauge g = meters.find(name).tag("facet", facet).gauge();
        return g == null ? null : g.value();
    }
}
