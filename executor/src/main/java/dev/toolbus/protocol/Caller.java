package dev.toolbus.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * The {@code caller} of one tool call: {@code {"type":"direct"}} (the default) or
 * {@code {"type":"programmatic","id":"…"}}, where {@code id} is the provider's id of the code run
 * that made the call. {@link #fromJson} also reads the providers' own shapes, so a bot core can pass
 * them through unchanged:
 * <ul>
 *   <li>Anthropic ({@code tool_use.caller}): {@code {"type":"code_execution_20250825","tool_id":"srvtoolu_…"}}
 *       and any other {@code code_execution_*} type → programmatic with {@code tool_id} as id;
 *       {@code {"type":"direct"}} → direct;</li>
 *   <li>OpenAI Responses ({@code function_call.caller}): {@code {"type":"program","caller_id":"…"}} →
 *       programmatic with {@code caller_id} as id; {@code {"type":"direct"}} → direct.</li>
 * </ul>
 * Immutable.
 */
public final class Caller {

    /** The longest id kept, in characters. */
    public static final int MAX_ID_CHARS = 256;

    /** The model called the tool itself. */
    public static final Caller DIRECT = new Caller(CallerType.DIRECT, "");

    private final CallerType type;
    private final String id;

    private Caller(CallerType type, String id) {
        this.type = type;
        this.id = id;
    }

    /**
     * A call made by code the model runs.
     *
     * @param id the provider's id of that code run ({@code null} or blank for none)
     * @throws IllegalArgumentException when the id is longer than {@value #MAX_ID_CHARS} characters
     */
    public static Caller programmatic(String id) {
        String v = id == null ? "" : id.strip();
        if (v.length() > MAX_ID_CHARS) {
            throw new IllegalArgumentException("caller.id is longer than " + MAX_ID_CHARS + " characters");
        }
        return new Caller(CallerType.PROGRAMMATIC, v);
    }

    /** The caller of this type: {@link #DIRECT}, or a programmatic caller with {@code id}. */
    public static Caller of(CallerType type, String id) {
        return Objects.requireNonNull(type, "type") == CallerType.DIRECT ? DIRECT : programmatic(id);
    }

    /**
     * Reads a {@code caller} object: toolbus's shape or a provider's (see the class comment);
     * {@code null} or a JSON null is {@link #DIRECT}.
     *
     * @throws IllegalArgumentException for anything else, naming what was wrong
     */
    public static Caller fromJson(JsonNode n) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return DIRECT;
        }
        if (!n.isObject()) {
            throw new IllegalArgumentException("caller must be an object, got " + n.getNodeType().name().toLowerCase(
                    java.util.Locale.ROOT));
        }
        JsonNode t = n.get("type");
        if (t == null || !t.isTextual()) {
            throw new IllegalArgumentException("caller.type must be a string");
        }
        String type = t.textValue().strip();
        switch (type) {
            case "direct":
                return DIRECT;
            case "programmatic":
                return programmatic(text(n, "id"));
            case "program":
                return programmatic(text(n, "caller_id"));
            default:
                if (type.startsWith("code_execution")) {
                    return programmatic(text(n, "tool_id"));
                }
                throw new IllegalArgumentException("caller.type '" + type + "' is not direct, programmatic, "
                        + "program (OpenAI) or code_execution_* (Anthropic)");
        }
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return "";
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException("caller." + field + " must be a string");
        }
        return v.textValue();
    }

    /** Direct or programmatic. */
    public CallerType type() {
        return type;
    }

    /** The provider's id of the code run that made the call; {@code ""} for a direct call. */
    public String id() {
        return id;
    }

    /** Whether code the model runs made the call. */
    public boolean isProgrammatic() {
        return type == CallerType.PROGRAMMATIC;
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof Caller c && type == c.type && id.equals(c.id);
    }

    @Override
    public int hashCode() {
        return type.hashCode() * 31 + id.hashCode();
    }

    @Override
    public String toString() {
        return id.isEmpty() ? type.wireName() : type.wireName() + "(" + id + ")";
    }
}
