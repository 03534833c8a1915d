package dev.toolbus.executor.state;

import dev.toolbus.metrics.ToolMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** The counters of turns answered by the {@link TurnLedger} instead of running. */
final class RepeatedTurnMetrics {

    /** Counts nothing (tests that call {@link IdempotentTurns} directly). */
    static final RepeatedTurnMetrics NONE = new RepeatedTurnMetrics(null, null);

    private final Counter replayed;
    private final Counter joined;

    private RepeatedTurnMetrics(Counter replayed, Counter joined) {
        this.replayed = replayed;
        this.joined = joined;
    }

    static RepeatedTurnMetrics register(MeterRegistry r) {
        return new RepeatedTurnMetrics(counter(r, "replayed"), counter(r, "joined"));
    }

    private static Counter counter(MeterRegistry r, String outcome) {
        return Counter.builder(ToolMetrics.TURNS_REPEATED).tag("outcome", outcome)
                .description("Turns that arrived again and were not run").register(r);
    }

    void replayed() {
        if (replayed != null) {
            replayed.increment();
        }
    }

    void joined() {
        if (joined != null) {
            joined.increment();
        }
    }
}
