package dev.toolbus.executor.limits;

import dev.toolbus.metrics.ToolMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** The meters of the limit rules, one set per rule name, kept across reloads (names are bounded by the config). */
final class LimitMetrics {

    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, Rule> rules = new ConcurrentHashMap<>();

    LimitMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    Rule rule(String name) {
        return rules.computeIfAbsent(name, n -> new Rule(registry, n));
    }

    /** One rule's meters. */
    static final class Rule {
        final Counter refusedRate;
        final Counter refusedTurn;
        final Counter refusedStore;
        final Counter waited;
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger waiting = new AtomicInteger();

        Rule(MeterRegistry r, String name) {
            refusedRate = refused(r, name, "rate");
            refusedTurn = refused(r, name, "turn");
            refusedStore = refused(r, name, "store");
            waited = Counter.builder(ToolMetrics.LIMITS_WAITED).tag("rule", name)
                    .description("Calls that waited for a concurrency permit").register(r);
            Gauge.builder(ToolMetrics.LIMITS_RUNNING, running, AtomicInteger::get).tag("rule", name)
                    .description("Calls holding a concurrency permit").register(r);
            Gauge.builder(ToolMetrics.LIMITS_WAITING, waiting, AtomicInteger::get).tag("rule", name)
                    .description("Calls waiting for a concurrency permit").register(r);
        }

        private static Counter refused(MeterRegistry r, String name, String reason) {
            return Counter.builder(ToolMetrics.LIMITS_REFUSED).tag("rule", name).tag("reason", reason)
                    .description("Calls refused by a limit rule").register(r);
        }
    }
}
