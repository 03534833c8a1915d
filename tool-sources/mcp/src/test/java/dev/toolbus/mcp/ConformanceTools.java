package dev.toolbus.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.modelcontextprotocol.spec.McpSchema;
import java.awt.Color;
import java.util.Base64;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The tools that {@code @modelcontextprotocol/conformance}'s server scenarios call by name
 * ({@code test_simple_text}, {@code test_image_content}, …), each an ordinary toolbus tool run through
 * the executor.
 */
final class ConformanceTools {

    /** A 44-byte WAV header with no samples: the smallest valid {@code audio/wav}. */
    static final String WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

    private ConformanceTools() {
    }

    static List<ToolSpec> all() {
        System.setProperty("java.awt.headless", "true");
        String png = Base64.getEncoder().encodeToString(SampleTools.png(Color.BLUE, 2));
        return List.of(
                tool("test_simple_text", ToolResult.text("This is a simple text response for testing.")),
                tool("test_image_content", ToolResult.builder().item(ContentItem.imageBase64(png, "image/png"))
                        .build()),
                tool("test_audio_content", ToolResult.builder().item(ContentItem.audioBase64(WAV, "audio/wav"))
                        .build()),
                tool("test_embedded_resource", ToolResult.builder().item(ContentItem.builder("resource")
                        .text("This is an embedded resource content.").mimeType("text/plain")
                        .uri("test://embedded-resource").build()).build()),
                tool("test_multiple_content_types", ToolResult.builder().content("Multiple content types test:")
                        .item(ContentItem.imageBase64(png, "image/png"))
                        .item(ContentItem.builder("resource").text("{\"test\":\"data\",\"value\":123}")
                                .mimeType("application/json").uri("test://mixed-content-resource").build()).build()),
                tool("test_error_handling", ToolResult.error("This tool intentionally returns an error for testing")),
                handler("test_tool_with_progress", "reports progress 0, 50 and 100 of 100", NO_ARGS, (args, ctx) ->
                        ctx.progress(0, 100.0, null)
                                .then(Mono.delay(STEP)).then(Mono.defer(() -> ctx.progress(50, 100.0, null)))
                                .then(Mono.delay(STEP)).then(Mono.defer(() -> ctx.progress(100, 100.0, null)))
                                .thenReturn(ToolResult.text("progress reported"))),
                handler("test_tool_with_logging", "posts three messages while it runs", NO_ARGS, (args, ctx) ->
                        ctx.send("Tool execution started")
                                .then(Mono.delay(STEP)).then(Mono.defer(() -> ctx.send("Tool processing data")))
                                .then(Mono.delay(STEP)).then(Mono.defer(() -> ctx.send("Tool execution completed")))
                                .thenReturn(ToolResult.text("logged"))),
                handler("test_elicitation", "asks the user", MESSAGE_ARG, (args, ctx) ->
                        ctx.ask(args.node().path("message").asText(), schema(USER_SCHEMA))
                                .map(a -> ToolResult.text("User response: action=" + a.outcome().name().toLowerCase(
                                        java.util.Locale.ROOT) + ", content=" + a.content()))),
                handler("test_sampling", "asks the client's model", PROMPT_ARG, (args, ctx) ->
                        McpSampling.createMessage(ctx, McpSchema.CreateMessageRequest.builder()
                                .messages(List.of(new McpSchema.SamplingMessage(McpSchema.Role.USER,
                                        new McpSchema.TextContent(args.node().path("prompt").asText()))))
                                .maxTokens(100).build())
                                .map(r -> ToolResult.text("LLM response: " + (r.content() instanceof McpSchema.TextContent t
                                        ? t.text() : "[" + r.content().type() + "]")))),
                asking("test_elicitation_sep1034_defaults", SEP1034_SCHEMA),
                asking("test_elicitation_sep1330_enums", SEP1330_SCHEMA),
                // beyond the suite, for NodeConversationTest: expiry and cancellation
                handler("test_ask_expires", "asks and gives up after 500 ms", NO_ARGS, (args, ctx) ->
                        ctx.ask("never answered", schema(USER_SCHEMA), java.time.Duration.ofMillis(500))
                                .map(a -> ToolResult.text("action=" + a.outcome().name()
                                        .toLowerCase(java.util.Locale.ROOT)))),
                handler("test_slow", "waits 30 s unless cancelled", NO_ARGS, (args, ctx) -> {
                    ctx.onCancel().subscribe(null, null, CANCELLED::incrementAndGet);
                    return Mono.delay(java.time.Duration.ofSeconds(30)).thenReturn(ToolResult.text("slept"));
                }),
                handler("test_cancelled_count", "how many test_slow calls were cancelled", NO_ARGS, (args, ctx) ->
                        Mono.fromSupplier(() -> ToolResult.text(String.valueOf(CANCELLED.get())))));
    }

    /** How many {@code test_slow} calls saw their cancel. */
    static final java.util.concurrent.atomic.AtomicInteger CANCELLED = new java.util.concurrent.atomic.AtomicInteger();

    /** The pause between two progress or log messages: past the executor's progress rate limit. */
    static final java.time.Duration STEP = java.time.Duration.ofMillis(250);

    private static final String NO_ARGS = "{\"type\":\"object\",\"properties\":{}}";
    private static final String MESSAGE_ARG = "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}},"
            + "\"required\":[\"message\"]}";
    private static final String PROMPT_ARG = "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\"}},"
            + "\"required\":[\"prompt\"]}";
    private static final String USER_SCHEMA = "{\"type\":\"object\",\"properties\":{"
            + "\"username\":{\"type\":\"string\",\"description\":\"User's response\"},"
            + "\"email\":{\"type\":\"string\",\"description\":\"User's email address\"}},"
            + "\"required\":[\"username\",\"email\"]}";
    private static final String SEP1034_SCHEMA = "{\"type\":\"object\",\"properties\":{"
            + "\"name\":{\"type\":\"string\",\"default\":\"John Doe\"},"
            + "\"age\":{\"type\":\"integer\",\"default\":30},"
            + "\"score\":{\"type\":\"number\",\"default\":95.5},"
            + "\"status\":{\"type\":\"string\",\"enum\":[\"active\",\"inactive\",\"pending\"],\"default\":\"active\"},"
            + "\"verified\":{\"type\":\"boolean\",\"default\":true}}}";
    private static final String SEP1330_SCHEMA = "{\"type\":\"object\",\"properties\":{"
            + "\"untitledSingle\":{\"type\":\"string\",\"enum\":[\"option1\",\"option2\",\"option3\"]},"
            + "\"titledSingle\":{\"type\":\"string\",\"oneOf\":[{\"const\":\"value1\",\"title\":\"First Option\"},"
            + "{\"const\":\"value2\",\"title\":\"Second Option\"},{\"const\":\"value3\",\"title\":\"Third Option\"}]},"
            + "\"legacyEnum\":{\"type\":\"string\",\"enum\":[\"opt1\",\"opt2\",\"opt3\"],"
            + "\"enumNames\":[\"Option One\",\"Option Two\",\"Option Three\"]},"
            + "\"untitledMulti\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":[\"option1\",\"option2\",\"option3\"]}},"
            + "\"titledMulti\":{\"type\":\"array\",\"items\":{\"anyOf\":[{\"const\":\"value1\",\"title\":\"First Choice\"},"
            + "{\"const\":\"value2\",\"title\":\"Second Choice\"},{\"const\":\"value3\",\"title\":\"Third Choice\"}]}}}}";

    private static ToolSpec asking(String name, String schema) {
        return handler(name, "asks with a schema", NO_ARGS, (args, ctx) -> ctx.ask("Please answer", schema(schema))
                .map(a -> ToolResult.text("Elicitation completed: action=" + a.outcome().name().toLowerCase(
                        java.util.Locale.ROOT) + ", content=" + a.content())));
    }

    private static ToolSpec handler(String name, String description, String inputSchema, ToolHandler handler) {
        return new ToolSpec(ToolDefinition.builder(name).description("conformance: " + description)
                .inputSchema((com.fasterxml.jackson.databind.node.ObjectNode) schema(inputSchema)).build(), handler);
    }

    private static JsonNode schema(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static ToolSpec tool(String name, ToolResult result) {
        return new ToolSpec(ToolDefinition.builder(name).description("conformance: " + name).build(),
                (args, ctx) -> Mono.just(result));
    }
}
