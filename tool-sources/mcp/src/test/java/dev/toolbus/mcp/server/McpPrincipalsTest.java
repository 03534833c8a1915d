package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.auth.AccessTokens;
import dev.toolbus.auth.TokenScope;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.policy.PermissionLevel;
import dev.toolbus.protocol.Risk;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Issue 21 item 1 on the MCP HTTP face: with scoped tokens, every call runs as its token's principal,
 * so one token cannot read back another token's cut result (the call ids, {@code mcp_call_<n>}, are
 * easy to guess), on either era; and an approval asked of a token's client (as {@code
 * elicitation/create}) is still answered by that client.
 */
class McpPrincipalsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TEXT = "abcdefghij".repeat(50);
    private ToolExecutor executor;
    private McpHttpServer http;

    @BeforeEach
    void start() {
        List<ToolSpec> tools = List.of(
                new ToolSpec(ToolDefinition.builder("long_text").description("Long").maxResultChars(100).build(),
                        (a, c) -> Mono.just(ToolResult.text(TEXT))),
                new ToolSpec(ToolDefinition.builder("wipe").description("Wipes").sideEffecting(true).risk(Risk.HIGH)
                        .build(), (a, c) -> Mono.just(ToolResult.text("wiped"))));
        executor = ToolExecutor.builder().tools(tools)
                .approval(() -> ApprovalSettings.builder().mode(ApprovalMode.AUTO).bypass(List.of("long_text"))
                        .build()).build();
        AccessTokens tokens = AccessTokens.builder()
                .token("alice-token", TokenScope.builder("alice").maxPermission(PermissionLevel.ADMIN).build())
                .token("bob-token", TokenScope.builder("bob").maxPermission(PermissionLevel.ADMIN).build())
                .build();
        http = McpToolServer.builder(executor).tokens(tokens).build().startHttp("127.0.0.1", 0)
                .block(Duration.ofSeconds(10));
    }

    @AfterEach
    void stop() {
        http.close();
        executor.close();
    }

    /** A sessionless tools/call on the 2025-11-25 era, or on 2026-07-28 with the per-request _meta. */
    private JsonNode call(String token, boolean modern, String tool, String arguments) throws Exception {
        String meta = modern ? ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}" : "";
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":" + arguments + meta + "}}";
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(http.url()))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (modern) {
            b.header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", "tools/call").header("Mcp-Name", tool);
        } else {
            b.header("MCP-Protocol-Version", "2025-11-25");
        }
        HttpResponse<String> r = HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
        String s = r.body();
        // an SSE answer: its last data line
        if (s.startsWith("event:") || s.startsWith("data:") || s.startsWith("id:")) {
            String last = null;
            for (String line : s.split("\n")) {
                if (line.startsWith("data:")) {
                    last = line.substring(5).strip();
                }
            }
            s = last;
        }
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(s).path("result");
    }

    private static String text(JsonNode result) {
        return result.path("content").path(0).path("text").asText();
    }

    private static String cutCallId(JsonNode result) {
        Matcher m = Pattern.compile("mcp_call_\\d+").matcher(text(result));
        assertThat(m.find()).as("the cut names its call id: %s", text(result)).isTrue();
        return m.group();
    }

    private void bobCannotReadAlicesCutResult(boolean modern) throws Exception {
        JsonNode cut = call("alice-token", modern, "long_text", "{}");
        assertThat(text(cut)).contains("read_tool_result").hasSizeLessThan(TEXT.length());
        String id = cutCallId(cut);

        JsonNode stolen = call("bob-token", modern, "read_tool_result", "{\"tool_call_id\":\"" + id + "\"}");
        assertThat(stolen.path("isError").asBoolean()).as(stolen.toString()).isTrue();
        assertThat(text(stolen)).doesNotContain("abcdefghij");

        if (!modern) {
            // on 2026-07-28 every call is a conversation (a stream) of its own, so no call reads back another's
            JsonNode own = call("alice-token", false, "read_tool_result", "{\"tool_call_id\":\"" + id + "\"}");
            assertThat(own.path("isError").asBoolean()).as(own.toString()).isFalse();
            assertThat(text(own)).startsWith("abcdefghij");
        }
    }

    @Test
    void legacyEra_aTokenCannotReadBackAnotherTokensCutResult() throws Exception {
        bobCannotReadAlicesCutResult(false);
    }

    @Test
    void modernEra_aTokenCannotReadBackAnotherTokensCutResult() throws Exception {
        bobCannotReadAlicesCutResult(true);
    }

    @Test
    void anApprovalAskedOfATokensClient_isAnsweredByThatClient() {
        McpSyncClient alice = McpClient.sync(HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + http.port())
                        .endpoint("/mcp").jsonMapper(new JacksonMcpJsonMapper(JSON))
                        .requestBuilder(HttpRequest.newBuilder().header("Authorization", "Bearer alice-token")).build())
                .requestTimeout(Duration.ofSeconds(20))
                .capabilities(McpSchema.ClientCapabilities.builder().elicitation().build())
                .elicitation(r -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, Map.of()))
                .build();
        try {
            alice.initialize();
            McpSchema.CallToolResult r = alice.callTool(new McpSchema.CallToolRequest("wipe", Map.of()));
            assertThat(r.isError()).as(r.toString()).isNotEqualTo(Boolean.TRUE);
            assertThat(((McpSchema.TextContent) r.content().get(0)).text()).isEqualTo("wiped");
        } finally {
            alice.closeGracefully();
        }
    }
}
