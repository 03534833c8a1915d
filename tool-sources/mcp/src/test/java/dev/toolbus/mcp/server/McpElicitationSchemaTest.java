package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Issue 21, low: an answer breaking the question's schema reached the tool. Over MCP the question is an
 * {@code elicitation/create} with the schema; a client whose {@code accept} content breaks it cannot be
 * asked again, so the question is cancelled at once: the tool sees {@code CANCEL}, never the content,
 * and does not wait for the question's timeout (60 s here, longer than the test's 20 s wait).
 */
class McpElicitationSchemaTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<String> seen = new CopyOnWriteArrayList<>();
    private ToolExecutor executor;
    private McpHttpServer http;

    @BeforeEach
    void start() throws Exception {
        JsonNode schema = JSON.readTree("{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},"
                + "\"required\":[\"city\"]}");
        ToolSpec askCity = new ToolSpec(ToolDefinition.builder("ask_city").description("Asks for a city.").build(),
                (a, c) -> c.ask("Which city?", schema).map(ans -> {
                    seen.add(ans.outcome() + " " + ans.content());
                    return ToolResult.text(ans.accepted() ? "city " + ans.content().path("city").asText()
                            : "no answer (" + ans.outcome() + ")");
                }));
        executor = ToolExecutor.builder().tools(List.of(askCity)).build();
        http = McpToolServer.builder(executor).build().startHttp("127.0.0.1", 0).block(WAIT);
    }

    @AfterEach
    void stop() {
        http.closeGracefully().block(WAIT);
        executor.closeGracefully().block(WAIT);
    }

    private McpAsyncClient client(Map<String, Object> content) {
        McpAsyncClient c = McpClient.async(HttpClientStreamableHttpTransport.builder(http.url().replace("/mcp", ""))
                        .endpoint("/mcp").jsonMapper(new JacksonMcpJsonMapper(JSON)).build())
                .requestTimeout(WAIT).initializationTimeout(WAIT)
                .capabilities(McpSchema.ClientCapabilities.builder().elicitation().build())
                .elicitation(r -> Mono.just(new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, content)))
                .build();
        c.initialize().block(WAIT);
        return c;
    }

    private static String text(McpSchema.CallToolResult r) {
        return ((McpSchema.TextContent) r.content().get(0)).text();
    }

    @Test
    void contentBreakingTheSchemaCancelsTheQuestion_andNeverReachesTheTool() {
        McpAsyncClient c = client(Map.of("city", 5));
        try {
            McpSchema.CallToolResult r = c.callTool(new McpSchema.CallToolRequest("ask_city", Map.of())).block(WAIT);
            assertThat(text(r)).isEqualTo("no answer (CANCEL)");
            assertThat(seen).containsExactly("CANCEL null");
        } finally {
            c.closeGracefully().block(WAIT);
        }
    }

    @Test
    void validContentIsPassedOn() {
        McpAsyncClient c = client(Map.of("city", "Paris"));
        try {
            McpSchema.CallToolResult r = c.callTool(new McpSchema.CallToolRequest("ask_city", Map.of())).block(WAIT);
            assertThat(text(r)).isEqualTo("city Paris");
        } finally {
            c.closeGracefully().block(WAIT);
        }
    }
}
