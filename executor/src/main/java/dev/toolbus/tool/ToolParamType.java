package dev.toolbus.tool;

import java.util.Locale;

/**
 * Parameter types, as the MaiBot SDK's {@code ToolParamType} names them. {@link #FLOAT} and
 * {@link #NUMBER} both map to the JSON Schema type {@code number}.
 */
public enum ToolParamType {
    STRING("string", "string"),
    INTEGER("integer", "integer"),
    NUMBER("number", "number"),
    FLOAT("float", "number"),
    BOOLEAN("boolean", "boolean"),
    ARRAY("array", "array"),
    OBJECT("object", "object");

    private final String value;
    private final String jsonType;

    ToolParamType(String value, String jsonType) {
        this.value = value;
        this.jsonType = jsonType;
    }

    /** The SDK's name of this type ({@code float} for {@link #FLOAT}). */
    public String value() {
        return value;
    }

    /** The JSON Schema type this maps to. */
    public String jsonType() {
        return jsonType;
    }

    /**
     * Reads a type name the way MaiBot's host does: trimmed, lower-cased; {@code int} → integer,
     * {@code float} → number, {@code bool} → boolean; anything unknown (including {@code list}) →
     * string.
     *
     * @param name a type name, may be {@code null}
     * @return the type, never {@code null}
     */
    public static ToolParamType fromName(String name) {
        String n = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
        return switch (n) {
            case "integer", "int" -> INTEGER;
            case "number" -> NUMBER;
            case "float" -> FLOAT;
            case "boolean", "bool" -> BOOLEAN;
            case "array" -> ARRAY;
            case "object" -> OBJECT;
            default -> STRING;
        };
    }
}
