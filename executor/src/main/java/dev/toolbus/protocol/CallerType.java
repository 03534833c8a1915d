package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * Who makes a tool call: the model itself, or code the model runs (a provider's programmatic tool
 * calling). A tool declares which it accepts ({@code allowed_callers}); wire names are lower case.
 */
public enum CallerType {
    /** The model called the tool itself (the default). */
    DIRECT,
    /** Code the model runs called the tool (Anthropic's and OpenAI's programmatic tool calling). */
    PROGRAMMATIC;

    /** The wire name: {@code direct} or {@code programmatic}. */
    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a wire name, case-insensitively.
     *
     * @throws IllegalArgumentException for anything but direct or programmatic
     */
    @JsonCreator
    public static CallerType parse(String s) {
        if (s != null) {
            switch (s.strip().toLowerCase(Locale.ROOT)) {
                case "direct":
                    return DIRECT;
                case "programmatic":
                    return PROGRAMMATIC;
                default:
                    break;
            }
        }
        throw new IllegalArgumentException("a caller must be direct or programmatic, got '" + s + "'");
    }
}
