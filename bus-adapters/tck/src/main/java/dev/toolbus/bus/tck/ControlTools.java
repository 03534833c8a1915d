package dev.toolbus.bus.tck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Risk;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.Map;
import reactor.core.publisher.Mono;

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

    /**
     * {@code ask_city(timeout_ms?)}: asks "Which city?" (waiting {@code timeout_ms} when given, else the
     * executor's default); returns "city &lt;answer&gt;" or "no answer (&lt;outcome&gt;)".
     */
    public static ToolSpec askCity(String instance, Map<String, String> ranOn) {
        return new ToolSpec(ToolDefinition.builder("ask_city").description("Asks for a city")
                .parameter(ToolParameter.builder("timeout_ms", ToolParamType.INTEGER).required(false).build())
                .build(), (a, c) -> {
            ranOn.put(c.turnId(), instance);
            Duration timeout = a.has("timeout_ms") ? Duration.ofMillis(a.integer("timeout_ms", 0)) : null;
            return c.ask("Which city?", CITY_SCHEMA, timeout).map(ans -> ToolResult.text(ans.accepted()
                    ? "city " + ans.content().get("city").asText()
                    : "no answer (" + ans.outcome().name().toLowerCase(java.util.Locale.ROOT) + ")"));
        });
    }

    /** {@code wipe(target)}: side-effecting, declares risk high; records where it ran, returns "wiped &lt;target&gt;". */
    public static ToolSpec wipe(String instance, Map<String, String> ranOn) {
        return new ToolSpec(ToolDefinition.builder("wipe").description("Wipes the target").sideEffecting(true)
                .risk(Risk.HIGH).parameter(ToolParameter.of("target", ToolParamType.STRING, "What to wipe")).build(),
                (a, c) -> Mono.fromSupplier(() -> {
                    ranOn.put(c.turnId(), instance);
                    return ToolResult.text("wiped " + a.string("target"));
                }));
    }

    /** {@code greet(text)}: sends the text to the conversation ({@code send_message}), then returns "greeted". */
    public static ToolSpec greet(String instance, Map<String, String> ranOn) {
        return new ToolSpec(ToolDefinition.builder("greet").description("Greets the conversation")
                .parameter(ToolParameter.of("text", ToolParamType.STRING, "What to say")).build(), (a, c) -> {
            ranOn.put(c.turnId(), instance);
            return c.send(a.string("text")).thenReturn(ToolResult.text("greeted"));
        });
    }

    private static JsonNode citySchema() {
        ObjectNode schema = JSON.createObjectNode().put("type", "object");
        schema.putObject("properties").putObject("city").put("type", "string");
        return schema;
    }
}
