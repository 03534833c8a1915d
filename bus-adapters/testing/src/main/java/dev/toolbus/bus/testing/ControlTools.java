package dev.toolbus.bus.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.util.Map;

/**
 * Tools for the conversation-control tests of the broker adapters. Each records, per turn id, the
 * instance that ran it, so a test can tell which instance owns a turn.
 */
public final class ControlTools {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** {@code {"type":"object","properties":{"city":{"type":"string"}}}} */
    public static final JsonNode CITY_SCHEMA = citySchema();

    private ControlTools() {
    }

    /** {@code sleep()}: blocks 30 s (a cancel interrupts it), then returns "slept". */
    public static ToolSpec sleep(String instance, Map<String, String> ranOn) {
        return new ToolSpec(ToolDefinition.builder("sleep").description("Sleeps 30 s").build(),
                ToolHandler.blocking((a, c) -> {
                    ranOn.put(c.turnId(), instance);
                    Thread.sleep(30_000);
                    return ToolResult.text("slept");
                }));
    }

    /** {@code ask_city()}: asks "Which city?"; returns "city &lt;answer&gt;" or "no answer (&lt;outcome&gt;)". */
    public static ToolSpec askCity(String instance, Map<String, String> ranOn) {
        return new ToolSpec(ToolDefinition.builder("ask_city").description("Asks for a city").build(), (a, c) -> {
            ranOn.put(c.turnId(), instance);
            return c.ask("Which city?", CITY_SCHEMA).map(ans -> ToolResult.text(ans.accepted()
                    ? "city " + ans.content().get("city").asText()
                    : "no answer (" + ans.outcome().name().toLowerCase(java.util.Locale.ROOT) + ")"));
        });
    }

    private static JsonNode citySchema() {
        ObjectNode schema = JSON.createObjectNode().put("type", "object");
        schema.putObject("properties").putObject("city").put("type", "string");
        return schema;
    }
}
