package dev.toolbus.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Json;
import java.util.Objects;

/**
 * The validated arguments of one call, as a JSON object. Context fields ({@code stream_id},
 * {@code chat_id}, and the user/group/platform fields a tool declares) are already filled from the
 * event context, never from the model.
 */
public final class ToolArguments {

    private final ObjectNode node;

    private ToolArguments(ObjectNode node) {
        this.node = node;
    }

    /** Wraps a JSON object. The node must not be modified afterwards. */
    public static ToolArguments of(ObjectNode node) {
        return new ToolArguments(Objects.requireNonNull(node, "node"));
    }

    /** Parses a JSON object string (for tests and adapters). */
    public static ToolArguments parse(String json) {
        try {
            JsonNode n = Json.mapper().readTree(json);
            if (!(n instanceof ObjectNode o)) {
                throw new IllegalArgumentException("arguments must be a JSON object");
            }
            return new ToolArguments(o);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("arguments are not valid JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** The arguments as a JSON object (read-only by contract). */
    public ObjectNode node() {
        return node;
    }

    /** The arguments as a compact JSON string. */
    public String json() {
        return node.toString();
    }

    /** Whether an argument is present and not JSON {@code null}. */
    public boolean has(String name) {
        JsonNode v = node.get(name);
        return v != null && !v.isNull();
    }

    /** A raw argument, or {@code null}. */
    public JsonNode get(String name) {
        return node.get(name);
    }

    /** A string argument (non-string values as their JSON text), or {@code null} when absent. */
    public String string(String name) {
        JsonNode v = node.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        return v.isTextual() ? v.textValue() : v.toString();
    }

    /** A string argument, or the fallback when absent. */
    public String string(String name, String fallback) {
        String s = string(name);
        return s == null ? fallback : s;
    }

    /**
     * An integer argument, or the fallback when absent. A number outside the {@code long} range reads as
     * {@code Long.MAX_VALUE} or {@code Long.MIN_VALUE} (never by expanding it: {@code 1e999999999} would
     * be a billion digits).
     */
    public long integer(String name, long fallback) {
        JsonNode v = node.get(name);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (v.isNumber() && !v.canConvertToLong()) {
            return v.isDouble() || v.isFloat() ? (long) v.doubleValue()
                    : v.decimalValue().signum() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return v.asLong(fallback);
    }

    /** A number argument, or the fallback when absent. */
    public double number(String name, double fallback) {
        JsonNode v = node.get(name);
        return v == null || v.isNull() ? fallback : v.asDouble(fallback);
    }

    /** A boolean argument, or the fallback when absent. */
    public boolean bool(String name, boolean fallback) {
        JsonNode v = node.get(name);
        return v == null || v.isNull() ? fallback : v.asBoolean(fallback);
    }

    /** The arguments bound to a Java type with Jackson. */
    public <T> T as(Class<T> type) {
        return Json.mapper().convertValue(node, type);
    }

    @Override
    public String toString() {
        return node.toString();
    }
}
