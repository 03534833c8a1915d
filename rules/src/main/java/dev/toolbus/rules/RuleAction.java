package dev.toolbus.rules;

import java.util.Locale;

/** What a rule does when it matches: its {@code then}. */
public enum RuleAction {
    /** The call waits for a person's approval, at high risk, whatever the approval mode (except {@code off}: denied). */
    ASK,
    /** The call ends {@code NOT_ALLOWED} with the rule's message. */
    DENY,
    /** The evaluation stops: later rules are not read (the call still goes through approval as usual). */
    ALLOW;

    /** The name written in {@code toolbus.yaml}: {@code ask}, {@code deny}, {@code allow}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Reads {@code ask}, {@code deny} or {@code allow} (case and blanks ignored); {@code null} for anything else. */
    public static RuleAction parse(String s) {
        if (s == null) {
            return null;
        }
        return switch (s.strip().toLowerCase(Locale.ROOT)) {
            case "ask" -> ASK;
            case "deny" -> DENY;
            case "allow" -> ALLOW;
            default -> null;
        };
    }
}
