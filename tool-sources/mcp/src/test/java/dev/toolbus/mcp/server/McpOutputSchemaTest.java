package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Output schemas through the MCP server face, with the MCP Java SDK's client over streamable HTTP: a
 * tool's output schema is published as {@code outputSchema}, a valid result's data as
 * {@code structuredContent}, and data that does not validate is an error result {@code INVALID_OUTPUT}.
 */
class McpOutputSchemaTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final ObjectMapper JSON = new ObjectMapper();

    ToolExecutor executor;
    McpHttpServer http;

    @BeforeEach
    void start() throws Exception {
        ObjectNode schema = (ObjectNode) JSON.readTree("{\"type\":\"object\",\"required\":[\"sum\"],"
                + "\"properties\":{\"sum\":{\"type\":\"integer\"}}}");
        ToolSpec sum = new ToolSpec(ToolDefinition.builder("sum").description("Adds.").outputSchema(schema)
                .parameter(ToolParameter.of("a", ToolParamType.INTEGER, "a"))
                .parameter(ToolParameter.of("b", ToolParamType.INTEGER, "b")).build(),
                (args, ctx) -> {
                    long s = args.integer("a", 0) + args.integer("b", 0);
                    Object data = s < 0 ? Map.of("sum", "negative") : Map.of("sum", s);
                    return Mono.just(ToolResult.builder().content("sum " + s).data(data).build());
                });
        ToolSpec plain = new ToolSpec(ToolDefinition.builder("plain").description("No schema.").build(),
                (args, ctx) -> Mono.just(ToolResult.text("plain")));
        executor = ToolExecutor.builder().tools(List.of(sum, plain)).build();
        http = McpToolServer.builder(executor).build().startHttp("127.0.0.1", 0).block(WAIT);
    }

    @AfterEach
    void stop() {
        http.closeGracefully().block(WAIT);
        executor.closeGracefully().block(WAIT);
    }

    private McpAsyncClient client() {
        McpAsyncClient c = McpClient.async(HttpClientStreamableHttpTransport.builder(http.url().replace("/mcp", ""))
                        .endpoint("/mcp").jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper())).build())
                .requestTimeout(WAIT).initializationTimeout(WAIT).build();
        c.initialize().block(WAIT);
        return c;
    }

    @Test
    void theOutputSchemaIsListed_andValidDataIsStructuredContent_andInvalidDataIsInvalidOutput() {
        McpAsyncClient c = client();
        try {
            Map<String, McpSchema.Tool> tools = new java.util.HashMap<>();
            c.listTools().block(WAIT).tools().forEach(t -> tools.put(t.name(), t));
            assertThat(tools.get("sum").outputSchema()).isEqualTo(Map.of("type", "object", "required", List.of("sum"),
                    "properties", Map.of("sum", Map.of("type", "integer"))));
            assertThat(tools.get("plain").outputSchema()).isNull();

            McpSchema.CallToolResult ok = c.callTool(new McpSchema.CallToolRequest("sum", Map.of("a", 2, "b", 3)))
                    .block(WAIT);
            assertThat(ok.isError()).isNotEqualTo(Boolean.TRUE);
            assertThat(ok.structuredContent()).isEqualTo(Map.of("sum", 5));

            McpSchema.CallToolResult bad = c.callTool(new McpSchema.CallToolRequest("sum", Map.of("a", -2, "b", 1)))
                    .block(WAIT);
            assertThat(bad.isError()).isTrue();
            assertThat(bad.meta()).containsEntry("dev.toolbus/error_code", "INVALID_OUTPUT");
            assertThat(((McpSchema.TextContent) bad.content().get(0)).text())
                    .isEqualTo("The result of tool sum does not match its output schema: data.sum: string found, integer expected");
        } finally {
            c.closeGracefully().block(WAIT);
        }
    }
}
