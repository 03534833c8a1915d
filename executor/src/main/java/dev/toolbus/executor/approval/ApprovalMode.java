package dev.toolbus.executor.approval;

import java.util.Locale;

/**
 * When a call waits for a human yes before it runs (wire and config lower snake case).
 *
 * <ul>
 *   <li>{@link #OFF}: no approval step (the default, as in the first release);</li>
 *   <li>{@link #AUTO}: low-risk calls run, the others ask;</li>
 *   <li>{@link #CONFIRM_ALL}: every call asks, low risk included;</li>
 *   <li>{@link #ASK}: nothing runs; every call is answered {@code NOT_APPROVED} without asking.</li>
 * </ul>
 * The bypass list and session grants apply in {@code auto} and {@code confirm_all}.
 */
public enum ApprovalMode {
    OFF,
    AUTO,
    CONFIRM_ALL,
    ASK;

    /** The config and wire name: {@code off}, {@code auto}, {@code confirm_all}, {@code ask}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a mode (case-insensitive; {@code confirm-all} is accepted too).
     *
     * @return the mode, or {@code null} for anything else (ChatAI's {@code yolo} included: it is not a mode)
     */
    public static ApprovalMode parse(Object value) {
        if (value instanceof ApprovalMode m) {
            return m;
        }
        if (!(value instanceof String s)) {
            return null;
        }
        String t = s.strip().toLowerCase(Locale.ROOT).replace('-', '_');
        for (ApprovalMode m : values()) {
            if (m.wireName().equals(t)) {
                return m;
            }
        }
        return null;
    }
}
