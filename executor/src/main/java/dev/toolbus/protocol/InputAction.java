package dev.toolbus.protocol;

import java.util.Locale;

/** The answer to an {@code input_request} (MCP elicitation's three); wire names {@code accept}, {@code decline}, {@code cancel}. */
public enum InputAction {
    /** The user answered; the content holds the answer. */
    ACCEPT,
    /** The user refused to answer. */
    DECLINE,
    /** The user dismissed the question. */
    CANCEL;

    /** The wire name. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The action of a wire name, or {@code null} when it names none. */
    public static InputAction fromWire(String s) {
        for (InputAction a : values()) {
            if (a.wireName().equals(s)) {
                return a;
            }
        }
        return null;
    }
}
