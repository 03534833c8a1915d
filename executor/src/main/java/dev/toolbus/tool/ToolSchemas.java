package dev.toolbus.tool;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Json;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.text.Texts;
import java.util.List;
import java.util.Map;

/**
 * Builds a definition's parameter schemas in the two forms MaiBot has:
 * <ul>
 *   <li>{@link #sdk the SDK form} ({@code get_parameters_schema}), the input of the parameter block:
 *       {@code required} only when non-empty, object parameters without {@code required: []}, arrays
 *       without items allowed, {@code null} for a tool without parameters;</li>
 *   <li>{@link #model the host form}, what the model receives: always an object schema with
 *       {@code properties} and {@code required}, {@code required: []} on every object parameter, and an
 *       array parameter without items rejected.</li>
 * </ul>
 */
final class ToolSchemas {

    /** The shared mapper, but keeping {@code null} map values: a dict's {@code "default": null} is meaningful. */
    private static final ObjectMapper TREES = Json.mapper().copy()
            .setDefaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.ALWAYS, JsonInclude.Include.ALWAYS));

    private ToolSchemas() {
    }

    /** A JSON-like Java value (maps, lists, scalars, Jackson nodes) as a JSON tree, nulls kept. */
    static JsonNode tree(Object value) {
        return TREES.valueToTree(value);
    }

    /** The SDK form of a definition's parameters, or {@code null} when it has none. */
    static ObjectNode sdk(ToolDefinition def, DescriptionLocale locale) {
        if (def.legacyAction() != null) {
            return legacyAction(def.legacyAction(), locale);
        }
        if (def.rawInputSchema() != null) {
            return def.rawInputSchema().deepCopy();
        }
        if (def.rawParameters() != null) {
            return dict(def.rawParameters());
        }
        return sdk(def.parameters());
    }

    /** The SDK form of structured parameters, or {@code null} for none. */
    static ObjectNode sdk(List<ToolParameter> parameters) {
        if (parameters.isEmpty()) {
            return null;
        }
        ObjectNode schema = object();
        ObjectNode props = schema.putObject("properties");
        ArrayNode required = Json.mapper().createArrayNode();
        for (ToolParameter p : parameters) {
            props.set(p.name(), parameter(p, false));
            if (p.required()) {
                required.add(p.name());
            }
        }
        if (!required.isEmpty()) {
            schema.set("required", required);
        }
        return schema;
    }

    /**
     * The schema the model receives.
     *
     * @throws IllegalArgumentException for an array parameter without items, or a schema that is not an
     *     object schema
     */
    static ObjectNode model(ToolDefinition def, DescriptionLocale locale) {
        if (def.legacyAction() != null) {
            return withRequired(def, legacyAction(def.legacyAction(), locale));
        }
        if (def.rawInputSchema() != null) {
            return withRequired(def, def.rawInputSchema().deepCopy());
        }
        if (def.rawParameters() != null) {
            return def.rawParameters().isEmpty() ? empty() : withRequired(def, dict(def.rawParameters()));
        }
        if (def.parameters().isEmpty()) {
            return empty();
        }
        ObjectNode schema = object();
        ObjectNode props = schema.putObject("properties");
        ArrayNode required = schema.putArray("required");
        for (ToolParameter p : def.parameters()) {
            if (p.type() == ToolParamType.ARRAY && p.itemsSchema() == null) {
                throw new IllegalArgumentException("tool '" + def.name() + "': array parameter '" + p.name()
                        + "' needs an items schema (MaiBot refuses it: 数组参数必须提供 items_schema)");
            }
            props.set(p.name(), parameter(p, true));
            if (p.required()) {
                required.add(p.name());
            }
        }
        return schema;
    }

    /** {@code {"type":"object","properties":{},"required":[]}}. */
    static ObjectNode empty() {
        ObjectNode schema = object();
        schema.putObject("properties");
        schema.putArray("required");
        return schema;
    }

    /**
     * Dict-style parameters, as the SDK reads them: an object schema ({@code type: object} or a
     * {@code properties} key) is taken as is; otherwise a property map, where non-map entries are dropped
     * and a truthy {@code required} is lifted to the object's {@code required} list.
     */
    static ObjectNode dict(Map<String, Object> raw) {
        ObjectNode given = (ObjectNode) tree(raw);
        if ("object".equals(given.path("type").textValue()) || given.has("properties")) {
            return given;
        }
        ObjectNode schema = object();
        ObjectNode props = schema.putObject("properties");
        ArrayNode required = Json.mapper().createArrayNode();
        for (Map.Entry<String, JsonNode> e : given.properties()) {
            if (!(e.getValue() instanceof ObjectNode property)) {
                continue;
            }
            ObjectNode copy = property.deepCopy();
            if (PythonText.truthy(copy.remove("required"))) {
                required.add(e.getKey());
            }
            props.set(e.getKey(), copy);
        }
        if (!required.isEmpty()) {
            schema.set("required", required);
        }
        return schema;
    }

    /** The schema of a legacy Action: every parameter an optional string; {@code null} for none. */
    static ObjectNode legacyAction(ToolDefinition.LegacyAction action, DescriptionLocale locale) {
        ObjectNode schema = object();
        ObjectNode props = schema.putObject("properties");
        action.actionParameters().forEach((name, description) -> {
            String n = PythonText.strip(name);
            if (n.isEmpty()) {
                return;
            }
            String d = PythonText.strip(description);
            ObjectNode p = props.putObject(n);
            p.put("type", "string");
            p.put("description", d.isEmpty() ? Texts.of(locale).legacyActionParameter() : d);
        });
        return props.isEmpty() ? null : schema;
    }

    private static ObjectNode parameter(ToolParameter p, boolean host) {
        ObjectNode s = Json.mapper().createObjectNode();
        s.put("type", p.type().jsonType());
        s.put("description", p.description());
        if (!p.enumValues().isEmpty()) {
            s.set("enum", tree(p.enumValues()));
        }
        if (p.defaultValue() != null) {
            s.set("default", tree(p.defaultValue()));
        }
        if (p.type() == ToolParamType.ARRAY && p.itemsSchema() != null) {
            s.set("items", tree(p.itemsSchema()));
        }
        if (p.type() == ToolParamType.OBJECT) {
            s.set("properties", p.properties() == null ? Json.mapper().createObjectNode()
                    : tree(p.properties()));
            if (host || !p.requiredProperties().isEmpty()) {
                s.set("required", tree(p.requiredProperties()));
            }
            if (p.additionalProperties() != null) {
                s.set("additionalProperties", tree(p.additionalProperties()));
            }
        }
        return s;
    }

    /**
     * The host's rule for a given schema: it must say {@code type: object}; {@code required: []} is added,
     * except to a draft-04 schema, whose meta-schema refuses an empty {@code required}.
     */
    private static ObjectNode withRequired(ToolDefinition def, ObjectNode schema) {
        if (schema == null) {
            return empty();
        }
        if (!"object".equals(schema.path("type").textValue())) {
            throw new IllegalArgumentException("tool '" + def.name()
                    + "': the parameter schema must have \"type\": \"object\" (MaiBot refuses it otherwise)");
        }
        if (!schema.path("required").isArray() && !schema.path("$schema").asText("").contains("draft-04")) {
            schema.putArray("required");
        }
        return schema;
    }

    private static ObjectNode object() {
        ObjectNode schema = Json.mapper().createObjectNode();
        schema.put("type", "object");
        return schema;
    }
}
