package dev.toolbus.rules;

import dev.cel.runtime.CelRuntime;
import java.util.List;

/** A rule with its compiled condition, its compiled {@code tools} patterns and its answers. */
final class CompiledRule {

    final Rule rule;
    final List<ToolPattern> tools;
    final CelRuntime.Program program;
    /** The condition without CEL's interpreter, or {@code null}: then {@link #program} always decides. */
    final DirectCondition direct;
    /** Whether its condition may read {@code tool.risk}. */
    final boolean readsRisk;
    final RuleDecision decision;

    CompiledRule(Rule rule, List<ToolPattern> tools, CelEnvironment.Compiled compiled) {
        this.rule = rule;
        this.tools = tools;
        this.program = compiled.program();
        this.direct = compiled.direct();
        this.readsRisk = compiled.readsRisk();
        this.decision = switch (rule.then()) {
            case ALLOW -> new RuleDecision(RuleOutcome.ALLOW, rule.name(), "", false);
            case DENY -> new RuleDecision(RuleOutcome.DENY, rule.name(), rule.message().isEmpty()
                    ? "The rule '" + rule.name() + "' does not allow this call." : rule.message(), false);
            case ASK -> new RuleDecision(RuleOutcome.ASK, rule.name(), rule.message().isEmpty()
                    ? "The rule '" + rule.name() + "' asks for approval of this call." : rule.message(), false);
        };
    }

    /** This rule evaluated by CEL's program alone (for tests). */
    CompiledRule withoutDirect() {
        return new CompiledRule(rule, tools, new CelEnvironment.Compiled(program, null, readsRisk));
    }

    /** The answer when the condition could not be evaluated: deny, naming the rule and what failed. */
    RuleDecision failure(String what) {
        return new RuleDecision(RuleOutcome.DENY, rule.name(), "The rule '" + rule.name()
                + "' could not be evaluated (" + what + "); the call is refused.", true);
    }
}
