package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** How much harm a call can do; drives the approval step. Wire names are lower case. */
public enum Risk {
    /** Read-only or harmless. */
    LOW,
    /** Changes something that can be undone. */
    MEDIUM,
    /** Destructive or hard to undo. */
    HIGH;

    /** The wire name: {@code low}, {@code medium} or {@code high}. */
    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a wire name, case-insensitively.
     *
     * @throws IllegalArgumentException for anything but low, medium or high
     */
    @JsonCreator
    public static Risk parse(String s) {
        if (s != null) {
            switch (s.strip().toLowerCase(Locale.ROOT)) {
                case "low":
                    return LOW;
                case "medium":
                    return MEDIUM;
                case "high":
                    return HIGH;
                default:
                    break;
            }
        }
        throw new IllegalArgumentException("risk must be low, medium or high, got '" + s + "'");
    }
}
