package dev.toolbus.protocol;

import java.util.Locale;

/** The answer to an {@code approval_request}; wire names {@code approve}, {@code deny}, {@code approve_session}. */
public enum ApprovalDecision {
    /** Run the calls. */
    APPROVE,
    /** Do not run them: they end {@code NOT_APPROVED}. */
    DENY,
    /** Run them and do not ask again for these tools in this stream for this user while the grant lasts. */
    APPROVE_SESSION;

    /** The wire name. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The decision of a wire name, or {@code null} when it names none. */
    public static ApprovalDecision fromWire(String s) {
        for (ApprovalDecision d : values()) {
            if (d.wireName().equals(s)) {
                return d;
            }
        }
        return null;
    }
}
