package dev.toolbus.rules;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The rules' counters, registered on first use per rule and kept: {@value #DECISIONS} (tags
 * {@code rule}, {@code outcome}: {@code allow}, {@code deny}, {@code ask}; a call no rule matched is
 * not counted) and {@value #ERRORS} (tag {@code rule}: evaluations that failed and denied the call,
 * which also count as a {@code deny} decision). Counters of at most {@value #MAX_RULES} rule names
 * are kept; later names share the tag {@code rule=other}. Create one per registry and give it to every
 * evaluation.
 */
public final class RuleMetrics {

    /** Decisions by rule and outcome. */
    public static final String DECISIONS = "toolbus.rules.decisions";
    /** Rules that failed at run time (and so denied). */
    public static final String ERRORS = "toolbus.rules.errors";
    /** Rule names with counters of their own. */
    public static final int MAX_RULES = 1024;

    /** Counts nothing. */
    public static final RuleMetrics NONE = new RuleMetrics(null);

    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, Counter[]> byRule = new ConcurrentHashMap<>();

    private RuleMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Counters in this registry. */
    public static RuleMetrics create(MeterRegistry registry) {
        return new RuleMetrics(Objects.requireNonNull(registry, "registry"));
    }

    void decided(String rule, RuleOutcome outcome) {
        if (registry != null) {
            counters(rule)[outcome.ordinal()].increment();
        }
    }

    void failed(String rule) {
        if (registry != null) {
            Counter[] c = counters(rule);
            c[0].increment();
            c[RuleOutcome.DENY.ordinal()].increment();
        }
    }

    /** Index 0: the errors counter; then the outcomes by ordinal (NONE's slot is unused). */
    private Counter[] counters(String rule) {
        Counter[] c = byRule.get(rule);
        if (c != null) {
            return c;
        }
        String tag = byRule.size() >= MAX_RULES ? "other" : rule;
        return byRule.computeIfAbsent(tag, this::register);
    }

    private Counter[] register(String rule) {
        Counter[] c = new Counter[RuleOutcome.values().length];
        c[0] = Counter.builder(ERRORS).tag("rule", rule)
                .description("Rules that failed at run time; each denied its call").register(registry);
        for (RuleOutcome o : RuleOutcome.values()) {
            if (o != RuleOutcome.NONE) {
                c[o.ordinal()] = Counter.builder(DECISIONS).tag("rule", rule).tag("outcome", o.wireName())
                        .description("Tool calls decided by a rule, by rule and outcome").register(registry);
            }
        }
        return c;
    }
}
