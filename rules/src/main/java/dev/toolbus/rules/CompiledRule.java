package dev.toolbus.rules;

import dev.cel.runtime.CelRuntime;
import java.util.List;

/** A rule with its compiled condition, its compiled {@code tools} patterns and its answers. */
final class CompiledRule {

    final Rule rule;
    final List<ToolPattern> tools;
    final CelRuntime.Program program;
    final RuleDecision decision;

    CompiledRule(Rule rule, List<ToolPattern> tools, CelRuntime.Program program) {
        this.rule = rule;
        this.tools = tools;
        this.program = program;
        this.decision = switch (rule.then()) {
            case ALLOW -> new RuleDecision(RuleOutcome.ALLOW, rule.name(), "", false);
            case DENY -> new RuleDecision(RuleOutcome.DENY, rule.name(), rule.message().isEmpty()
                    ? "The rule '" + rule.name() + "' does not allow this call." : rule.message(), false);
            case ASK -> new RuleDecision(RuleOutcome.ASK, rule.name(), rule.message().isEmpty()
                    ? "The rule '" + rule.name() + "' asks for approval of this call." : rule.message(), false);
        };
    }

    /** The answer when the condition could not be evaluated: deny, naming the rule and what failed. */
    RuleDecision failure(String what) {
        return new RuleDecision(RuleOutcome.DENY, rule.name(), "The rule '" + rule.name()
                + "' could not be evaluated (" + what + "); the call is refused.", true);
    }
}
