package dev.toolbus.registry;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.ListToolsEvent;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.ToolDefinition;

/**
 * Tool definitions as the JSON that OpenAI, Anthropic and MCP expect. The description is
 * {@link ToolDefinition#description(DescriptionLocale)} and the schema
 * {@link ToolDefinition#inputSchema(DescriptionLocale)} (a copy); in {@link DescriptionLocale#ZH} the
 * OpenAI form is the function definition MaiBot's host sends, field order included.
 */
public final class ToolExport {

    private ToolExport() {
    }

    /** One definition in the given format. */
    public static ObjectNode export(ToolDefinition def, ListToolsEvent.Format format, DescriptionLocale locale) {
        return switch (format) {
            case OPENAI -> openAi(def, locale);
            case ANTHROPIC -> anthropic(def, locale);
            case MCP -> mcp(def, locale);
        };
    }

    /** {@code {"type":"function","function":{"name","description","parameters"}}}. */
    public static ObjectNode openAi(ToolDefinition def, DescriptionLocale locale) {
        ObjectNode n = Json.mapper().createObjectNode();
        n.put("type", "function");
        ObjectNode f = n.putObject("function");
        f.put("name", def.name());
        f.put("description", def.description(locale));
        f.set("parameters", def.inputSchema(locale).deepCopy());
        return n;
    }

    /** {@code {"name","description","input_schema"}}. */
    public static ObjectNode anthropic(ToolDefinition def, DescriptionLocale locale) {
        ObjectNode n = Json.mapper().createObjectNode();
        n.put("name", def.name());
        n.put("description", def.description(locale));
        n.set("input_schema", def.inputSchema(locale).deepCopy());
        return n;
    }

    /** {@code {"name","description","inputSchema"}}. */
    public static ObjectNode mcp(ToolDefinition def, DescriptionLocale locale) {
        ObjectNode n = Json.mapper().createObjectNode();
        n.put("name", def.name());
        n.put("description", def.description(locale));
        n.set("inputSchema", def.inputSchema(locale).deepCopy());
        return n;
    }
}
