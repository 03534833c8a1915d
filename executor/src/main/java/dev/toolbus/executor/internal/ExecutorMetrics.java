package dev.toolbus.executor.internal;

import dev.toolbus.metrics.ToolMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** The executor's meters, resolved once per tool so the hot path does no registry lookups. */
final class ExecutorMetrics {

    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, ToolMeters> tools = new ConcurrentHashMap<>();
    private final Counter cacheHits;
    private final Counter cacheMisses;
    private final Counter turns;
    private final Counter journalReplayed;
    private final Counter journalUnknown;

    ExecutorMetrics(MeterRegistry registry, Supplier<Number> inflight, Supplier<Number> queued) {
        this.registry = registry;
        this.cacheHits = Counter.builder(ToolMetrics.CACHE_REQUESTS).tag("result", "hit")
                .description("Cache lookups of tool results").register(registry);
        this.cacheMisses = Counter.builder(ToolMetrics.CACHE_REQUESTS).tag("result", "miss")
                .description("Cache lookups of tool results").register(registry);
        this.turns = Counter.builder(ToolMetrics.TURNS).description("Turns completed").register(registry);
        this.journalReplayed = Counter.builder(ToolMetrics.STATE_JOURNAL).tag("outcome", "replayed")
                .description("Calls the call journal answered instead of running them").register(registry);
        this.journalUnknown = Counter.builder(ToolMetrics.STATE_JOURNAL).tag("outcome", "outcome_unknown")
                .description("Calls the call journal answered instead of running them").register(registry);
        Gauge.builder(ToolMetrics.INFLIGHT, inflight).description("Handlers running now").register(registry);
        Gauge.builder(ToolMetrics.QUEUED, queued).description("Calls waiting for a slot").register(registry);
    }

    void call(String tool, String outcome, long nanos) {
        tool(tool).call(outcome, nanos);
    }

    /** The meters of one tool (kept by its {@link ToolPlan}, so a call looks nothing up). */
    ToolMeters tool(String tool) {
        return tools.computeIfAbsent(tool, ToolMeters::new);
    }

    void retry(String tool) {
        tool(tool).retries.increment();
    }

    void cache(boolean hit) {
        (hit ? cacheHits : cacheMisses).increment();
    }

    /** A call answered from the journal: its recorded events replayed, or {@code OUTCOME_UNKNOWN}. */
    void journal(boolean replayed) {
        (replayed ? journalReplayed : journalUnknown).increment();
    }

    void turn() {
        turns.increment();
    }

    /** One tool's meters; the counter of each outcome is registered when it first occurs. */
    final class ToolMeters {
        final String tool;
        final Timer duration;
        final Counter retries;
        final ConcurrentHashMap<String, Counter> outcomes = new ConcurrentHashMap<>(4);
        /** The {@code ok} counter once a call succeeded (the common outcome, without a map lookup). */
        private volatile Counter ok;

        ToolMeters(String tool) {
            this.tool = tool;
            this.duration = Timer.builder(ToolMetrics.DURATION).tag("tool", tool)
                    .description("Tool call duration")
                    .publishPercentileHistogram()
                    .minimumExpectedValue(java.time.Duration.ofNanos(100_000))
                    .maximumExpectedValue(java.time.Duration.ofMinutes(2))
                    .register(registry);
            this.retries = Counter.builder(ToolMetrics.RETRIES).tag("tool", tool)
                    .description("Tool call retries").register(registry);
        }

        void call(String outcome, long nanos) {
            outcome(outcome).increment();
            duration.record(nanos, TimeUnit.NANOSECONDS);
        }

        Counter outcome(String outcome) {
            if (outcome == CallRun.OK) {
                Counter c = ok;
                if (c == null) {
                    c = lookup(outcome);
                    ok = c;
                }
                return c;
            }
            return lookup(outcome);
        }

        private Counter lookup(String outcome) {
            Counter c = outcomes.get(outcome);
            if (c == null) {
                c = outcomes.computeIfAbsent(outcome, o -> Counter.builder(ToolMetrics.CALLS).tag("tool", tool)
                        .tag("outcome", o).description("Tool calls by outcome").register(registry));
            }
            return c;
        }
    }
}
