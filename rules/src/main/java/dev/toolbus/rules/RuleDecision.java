package dev.toolbus.rules;

import java.util.Objects;

/**
 * The rules' answer for one call.
 *
 * @param outcome none, allow, deny or ask
 * @param rule the name of the rule that decided, {@code ""} for {@link RuleOutcome#NONE}
 * @param message the text for the caller: the rule's {@code message}, or a default naming the rule;
 *     for a rule that failed, what failed; {@code ""} for {@link RuleOutcome#NONE} and
 *     {@link RuleOutcome#ALLOW}
 * @param failed whether the rule could not be evaluated (then the outcome is {@link RuleOutcome#DENY})
 */
public record RuleDecision(RuleOutcome outcome, String rule, String message, boolean failed) {

    /** No rule matched. */
    public static final RuleDecision NONE = new RuleDecision(RuleOutcome.NONE, "", "", false);

    public RuleDecision {
        Objects.requireNonNull(outcome, "outcome");
        rule = Objects.requireNonNullElse(rule, "");
        message = Objects.requireNonNullElse(message, "");
        if (failed && outcome != RuleOutcome.DENY) {
            throw new IllegalArgumentException("a failed rule denies");
        }
    }

    /** Whether the call must end {@code NOT_ALLOWED}. */
    public boolean denies() {
        return outcome == RuleOutcome.DENY;
    }

    /** Whether the call must wait for approval. */
    public boolean asks() {
        return outcome == RuleOutcome.ASK;
    }
}
