package dev.toolbus.rules;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Who makes the call: the model directly, or code the model runs (a provider's programmatic tool
 * calling), as the {@code caller} variable shows it.
 *
 * @param type {@code direct} or {@code programmatic}
 * @param id the programmatic caller's id (the provider's), {@code ""} for a direct call
 */
public record Caller(String type, String id) {

    /** The model calls the tool itself. */
    public static final Caller DIRECT = new Caller("direct", "");

    /** @throws IllegalArgumentException unless {@code type} is {@code direct} or {@code programmatic} */
    public Caller {
        Objects.requireNonNull(type, "type");
        type = type.strip().toLowerCase(Locale.ROOT);
        if (!type.equals("direct") && !type.equals("programmatic")) {
            throw new IllegalArgumentException("caller type must be direct or programmatic, got '" + type + "'");
        }
        id = id == null ? "" : id.strip();
    }

    /** A call made by code the model runs. */
    public static Caller programmatic(String id) {
        return new Caller("programmatic", id);
    }

    /** The {@code caller} variable's value. */
    MapValue value() {
        return this == DIRECT ? DIRECT_VALUE : new MapValue.Fixed(Map.of("type", type, "id", id));
    }

    private static final MapValue DIRECT_VALUE = new MapValue.Fixed(Map.of("type", "direct", "id", ""));
}
