package dev.toolbus.tool;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Json;

/** Builds a definition's model-facing JSON Schema (MaiBot host rules). Placeholder: refined with vectors. */
final class ToolSchemas {

    private ToolSchemas() {
    }

    static ObjectNode build(ToolDefinition def) {
        if (def.rawInputSchema() != null) {
            ObjectNode s = def.rawInputSchema().deepCopy();
            if (!s.path("required").isArray()) {
                s.putArray("required");
            }
            return s;
        }
        ObjectNode schema = Json.mapper().createObjectNode();
        schema.put("type", "object");
        ObjectNode props = schema.putObject("properties");
        ArrayNode required = schema.putArray("required");
        for (ToolParameter p : def.parameters()) {
            ObjectNode ps = props.putObject(p.name());
            ps.put("type", p.type().jsonType());
            ps.put("description", p.description());
            if (!p.enumValues().isEmpty()) {
                ps.set("enum", Json.mapper().valueToTree(p.enumValues()));
            }
            if (p.defaultValue() != null) {
                ps.set("default", Json.mapper().valueToTree(p.defaultValue()));
            }
            if (p.required()) {
                required.add(p.name());
            }
        }
        return schema;
    }
}
