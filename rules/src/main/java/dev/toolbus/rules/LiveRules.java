package dev.toolbus.rules;

import dev.toolbus.protocol.CallerType;
import dev.toolbus.spi.CallRules;
import dev.toolbus.tool.ToolDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The executor's {@link CallRules} over the {@link RuleSet} in force: each call reads the supplier once
 * (give {@code LiveConfig.rules()}, so a reload applies to the next call) and its decisions are counted
 * in the meter registry ({@link RuleMetrics}).
 *
 * <pre>{@code
 * ToolExecutor.builder().rules(LiveRules.of(live.rules(), meters))...
 * }</pre>
 */
public final class LiveRules implements CallRules {

    private final Supplier<RuleSet> rules;
    private final RuleMetrics metrics;

    private LiveRules(Supplier<RuleSet> rules, RuleMetrics metrics) {
        this.rules = rules;
        this.metrics = metrics;
    }

    /**
     * Rules read from {@code rules} on every call.
     *
     * @param rules the rules in force (must be cheap and never return {@code null})
     * @param meters where {@link RuleMetrics} counts
     */
    public static LiveRules of(Supplier<RuleSet> rules, MeterRegistry meters) {
        return new LiveRules(Objects.requireNonNull(rules, "rules"), RuleMetrics.create(meters));
    }

    /** Fixed rules (tests, embedding without a config file). */
    public static LiveRules of(RuleSet rules, MeterRegistry meters) {
        Objects.requireNonNull(rules, "rules");
        return of(() -> rules, meters);
    }

    @Override
    public Verdict decide(Call call) {
        return current().decide(call, metrics);
    }

    @Override
    public Set<CallerType> allowedCallers(ToolDefinition tool) {
        return current().allowedCallers(tool);
    }

    @Override
    public boolean dangerous(ToolDefinition tool) {
        return current().dangerous(tool);
    }

    private RuleSet current() {
        return Objects.requireNonNull(rules.get(), "the rules supplier returned null");
    }
}
