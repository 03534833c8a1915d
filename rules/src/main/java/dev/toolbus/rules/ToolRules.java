package dev.toolbus.rules;

import dev.cel.runtime.CelEvaluationException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The rules of a {@link RuleSet} that can match one tool (their {@code tools} name it), in order,
 * with the tool's {@code tool} variable prepared: what is left to do per call is to evaluate their
 * conditions. Immutable and thread-safe; {@link #isEmpty()} when no rule names the tool, and then
 * {@link #evaluate} costs nothing.
 */
public final class ToolRules {

    static final ToolRules EMPTY = new ToolRules(new CompiledRule[0], new MapValue.Fixed(Map.of()));

    private final CompiledRule[] rules;
    private final MapValue tool;

    ToolRules(CompiledRule[] rules, MapValue tool) {
        this.rules = rules;
        this.tool = tool;
    }

    /** Whether no rule applies to the tool. */
    public boolean isEmpty() {
        return rules.length == 0;
    }

    /** The names of the rules that apply to the tool, in order. */
    public List<String> ruleNames() {
        List<String> out = new ArrayList<>(rules.length);
        for (CompiledRule r : rules) {
            out.add(r.rule.name());
        }
        return out;
    }

    /**
     * Evaluates the rules in order; the first whose condition is true decides ({@code allow} stops
     * the evaluation too). A condition that fails (a missing key, a type error at run time, too many
     * steps) denies the call, naming the rule: rules fail closed. Decisions and failures are counted
     * in {@code metrics}.
     *
     * @return {@link RuleDecision#NONE} when no condition is true
     */
    public RuleDecision evaluate(RuleCall call, RuleMetrics metrics) {
        if (rules.length == 0) {
            return RuleDecision.NONE;
        }
        Objects.requireNonNull(call, "call");
        Objects.requireNonNull(metrics, "metrics");
        CallVariables vars = new CallVariables(call, tool);
        for (CompiledRule r : rules) {
            Object v;
            try {
                v = r.program.eval(vars);
            } catch (CelEvaluationException e) {
                metrics.failed(r.rule.name());
                return r.failure(e.getMessage());
            } catch (RuntimeException e) {
                metrics.failed(r.rule.name());
                return r.failure(e.toString());
            }
            if (v instanceof Boolean b) {
                if (b) {
                    metrics.decided(r.rule.name(), r.decision.outcome());
                    return r.decision;
                }
            } else {
                metrics.failed(r.rule.name());
                return r.failure("the condition gave " + v + ", not a bool");
            }
        }
        return RuleDecision.NONE;
    }

    @Override
    public String toString() {
        return "ToolRules" + ruleNames();
    }
}
