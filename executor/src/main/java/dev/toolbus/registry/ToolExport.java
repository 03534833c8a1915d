package dev.toolbus.registry;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.CallerType;
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

    /** One definition in the given format, with the callers it declares. */
    public static ObjectNode export(ToolDefinition def, ListToolsEvent.Format format, DescriptionLocale locale) {
        return export(def, format, locale, def.allowedCallers());
    }

    /**
     * One definition in the given format. A tool that allows more than direct calls carries its
     * {@code allowed_callers} where the format has the field: OpenAI {@code ["direct","programmatic"]}
     * beside {@code type}, Anthropic {@code ["direct","code_execution_20250825"]}; MCP has none. A tool
     * with an output schema carries it in MCP ({@code outputSchema}, when it describes an object).
     *
     * @param callers who may call it (its declaration, or the operator's override)
     */
    public static ObjectNode export(ToolDefinition def, ListToolsEvent.Format format, DescriptionLocale locale,
                                    java.util.Set<CallerType> callers) {
        ObjectNode n = switch (format) {
            case OPENAI -> openAi(def, locale);
            case ANTHROPIC -> anthropic(def, locale);
            case MCP -> mcp(def, locale);
        };
        if (format != ListToolsEvent.Format.MCP && !callers.equals(DIRECT_ONLY)) {
            com.fasterxml.jackson.databind.node.ArrayNode a = n.putArray("allowed_callers");
            for (CallerType t : callers) {
                a.add(t == CallerType.DIRECT ? "direct"
                        : format == ListToolsEvent.Format.ANTHROPIC ? ANTHROPIC_PROGRAMMATIC : "programmatic");
            }
        }
        return n;
    }

    /** The Anthropic caller type a programmatic caller is listed as (the code execution tool's version). */
    public static final String ANTHROPIC_PROGRAMMATIC = "code_execution_20250825";

    private static final java.util.Set<CallerType> DIRECT_ONLY = java.util.EnumSet.of(CallerType.DIRECT);

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
        if (def.hasOutputSchema()) {
            ObjectNode out = def.outputSchema();
            if ("object".equals(out.path("type").asText())) {
                n.set("outputSchema", out);
            }
        }
        return n;
    }
}
