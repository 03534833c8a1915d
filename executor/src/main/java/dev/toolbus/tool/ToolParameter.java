package dev.toolbus.tool;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One structured parameter of a tool, with the fields and defaults of the MaiBot SDK's
 * {@code ToolParameterInfo}: {@code required} defaults to {@code true}; a {@code null} default
 * cannot be expressed.
 *
 * @param name the argument name, not blank
 * @param type the parameter type
 * @param description what the model should pass; may be empty
 * @param required whether the argument must be present
 * @param enumValues allowed values, empty for any
 * @param defaultValue the default (a JSON-like value: String, Number, Boolean, List, Map), or {@code null}
 * @param itemsSchema JSON Schema of array items ({@link ToolParamType#ARRAY} only), or {@code null}
 * @param properties JSON Schema properties ({@link ToolParamType#OBJECT} only), or {@code null}
 * @param requiredProperties required property names ({@link ToolParamType#OBJECT} only)
 * @param additionalProperties {@code Boolean} or a schema map ({@link ToolParamType#OBJECT} only), or {@code null}
 */
public record ToolParameter(
        String name,
        ToolParamType type,
        String description,
        boolean required,
        List<Object> enumValues,
        Object defaultValue,
        Map<String, Object> itemsSchema,
        Map<String, Object> properties,
        List<String> requiredProperties,
        Object additionalProperties) {

    /** Validates the name and applies the defaults; maps keep their order. */
    public ToolParameter {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("parameter name must not be blank");
        }
        type = type == null ? ToolParamType.STRING : type;
        description = description == null ? "" : description;
        enumValues = enumValues == null ? List.of() : List.copyOf(enumValues);
        itemsSchema = itemsSchema == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(itemsSchema));
        properties = properties == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(properties));
        requiredProperties = requiredProperties == null ? List.of() : List.copyOf(requiredProperties);
    }

    /** Starts a required parameter of the given type. */
    public static Builder builder(String name, ToolParamType type) {
        return new Builder(name, type);
    }

    /** Shorthand for a required parameter with a description. */
    public static ToolParameter of(String name, ToolParamType type, String description) {
        return builder(name, type).description(description).build();
    }

    /** Builder of {@link ToolParameter}. */
    public static final class Builder {
        private final String name;
        private final ToolParamType type;
        private String description = "";
        private boolean required = true;
        private List<Object> enumValues = List.of();
        private Object defaultValue;
        private Map<String, Object> itemsSchema;
        private Map<String, Object> properties;
        private List<String> requiredProperties = List.of();
        private Object additionalProperties;

        private Builder(String name, ToolParamType type) {
            this.name = name;
            this.type = type;
        }

        public Builder description(String description) {
            this.description = description;
            return this;
        }

        public Builder required(boolean required) {
            this.required = required;
            return this;
        }

        public Builder enumValues(List<?> values) {
            this.enumValues = List.copyOf(values);
            return this;
        }

        public Builder defaultValue(Object value) {
            this.defaultValue = value;
            return this;
        }

        public Builder itemsSchema(Map<String, Object> schema) {
            this.itemsSchema = schema;
            return this;
        }

        public Builder properties(Map<String, Object> properties) {
            this.properties = properties;
            return this;
        }

        public Builder requiredProperties(List<String> names) {
            this.requiredProperties = names;
            return this;
        }

        public Builder additionalProperties(Object value) {
            this.additionalProperties = value;
            return this;
        }

        public ToolParameter build() {
            return new ToolParameter(name, type, description, required, enumValues, defaultValue, itemsSchema,
                    properties, requiredProperties, additionalProperties);
        }
    }
}
