package dev.toolbus.executor;

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
    private final ConcurrentHashMap<String, PerTool> tools = new ConcurrentHashMap<>();
    private final Counter cacheHits;
    private final Counter cacheMisses;
    private final Counter turns;

    ExecutorMetrics(MeterRegistry registry, Supplier<Number> inflight, Supplier<Number> queued) {
        this.registry = registry;
        this.cacheHits = Counter.builder(ToolMetrics.CACHE_REQUESTS).tag("result", "hit")
                .description("Cache lookups of tool results").register(registry);
        this.cacheMisses = Counter.builder(ToolMetrics.CACHE_REQUESTS).tag("result", "miss")
                .description("Cache lookups of tool results").register(registry);
        this.turns = Counter.builder(ToolMetrics.TURNS).description("Turns completed").register(registry);
        Gauge.builder(ToolMetrics.INFLIGHT, inflight).description("Handlers running now").register(registry);
        Gauge.builder(ToolMetrics.QUEUED, queued).description("Calls waiting for a slot").register(registry);
    }

    void call(String tool, String outcome, long nanos) {
        PerTool t = tools.computeIfAbsent(tool, PerTool::new);
        t.outcome(outcome).increment();
        t.duration.record(nanos, TimeUnit.NANOSECONDS);
    }

    void retry(String tool) {
        tools.computeIfAbsent(tool, PerTool::new).retries.increment();
    }

    void cache(boolean hit) {
        (hit ? cacheHits : cacheMisses).increment();
    }

    void turn() {
        turns.increment();
    }

    private final class PerTool {
        final String tool;
        final Timer duration;
        final Counter retries;
        final ConcurrentHashMap<String, Counter> outcomes = new ConcurrentHashMap<>(4);

        PerTool(String tool) {
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

        Counter outcome(String outcome) {
            Counter c = outcomes.get(outcome);
            if (c == null) {
                c = outcomes.computeIfAbsent(outcome, o -> Counter.builder(ToolMetrics.CALLS).tag("tool", tool)
                        .tag("outcome", o).description("Tool calls by outcome").register(registry));
            }
            return c;
        }
    }
}
