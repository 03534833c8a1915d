package dev.toolbus.rules;

import java.util.Locale;

/** The outcome of evaluating the rules for one call. */
public enum RuleOutcome {
    /** No rule matched: the call goes on as the policy and approval settings say. */
    NONE,
    /** An {@code allow} rule matched: no later rule is read; the call goes on. */
    ALLOW,
    /** A {@code deny} rule matched, or a rule could not be evaluated (fail closed): the call ends {@code NOT_ALLOWED}. */
    DENY,
    /** An {@code ask} rule matched: the call needs a person's approval. */
    ASK;

    /** Lower case, as the metrics tag it. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
