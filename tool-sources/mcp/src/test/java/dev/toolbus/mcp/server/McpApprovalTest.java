package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.Risk;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Approval through the MCP server, with the MCP Java SDK's client over streamable HTTP: a high-risk
 * tool under {@code approval.mode: auto} asks the client with {@code elicitation/create} (its text the
 * approval prompt); {@code accept} runs it, {@code decline} ends it {@code NOT_APPROVED} without running
 * it, and a client that cannot be asked is denied at once; a low-risk tool is not asked. A tool the
 * policy hides from the session is not listed, and a call of it is refused by the policy with its code
 * (as on the gateway), while a name no tool has is the SDK's "Unknown tool".
 */
class McpApprovalTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    final AtomicInteger wiped = new AtomicInteger();
    ToolExecutor executor;
    McpHttpServer http;

    @BeforeEach
    void start() {
        ToolSpec wipe = new ToolSpec(ToolDefinition.builder("wipe").description("Wipes.").risk(Risk.HIGH).build(),
                (args, ctx) -> Mono.fromCallable(() -> ToolResult.text("wiped " + wiped.incrementAndGet())));
        ToolSpec read = new ToolSpec(ToolDefinition.builder("read").description("Reads.").risk(Risk.LOW).build(),
                (args, ctx) -> Mono.just(ToolResult.text("read")));
        ToolSpec secret = new ToolSpec(ToolDefinition.builder("secret").description("Owners only.").build(),
                (args, ctx) -> Mono.just(ToolResult.text("secret ran")));
        executor = ToolExecutor.builder().tools(List.of(wipe, read, secret))
                .policy((tool, stream, ctx) -> tool.name().equals("secret")
                        ? dev.toolbus.spi.ToolPolicy.Decision.permissionDenied("owners only")
                        : dev.toolbus.spi.ToolPolicy.Decision.ALLOW)
                .approval(ApprovalSettings.builder().mode(ApprovalMode.AUTO).timeoutMs(30_000).build()).build();
        http = McpToolServer.builder(executor).build().startHttp("127.0.0.1", 0).block(WAIT);
    }

    @AfterEach
    void stop() {
        http.closeGracefully().block(WAIT);
        executor.closeGracefully().block(WAIT);
    }

    private McpAsyncClient client(McpSchema.ElicitResult.Action answer, List<String> asked) {
        McpClient.AsyncSpec spec = McpClient.async(HttpClientStreamableHttpTransport.builder(http.url().replace("/mcp", ""))
                        .endpoint("/mcp").jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper())).build())
                .requestTimeout(WAIT).initializationTimeout(WAIT);
        if (answer != null) {
            spec.capabilities(McpSchema.ClientCapabilities.builder().elicitation().build())
                    .elicitation(r -> {
                        asked.add(r.message());
                        return Mono.just(new McpSchema.ElicitResult(answer, answer == McpSchema.ElicitResult.Action.ACCEPT
                                ? Map.of() : null));
                    });
        }
        McpAsyncClient c = spec.build();
        c.initialize().block(WAIT);
        return c;
    }

    private static String code(McpSchema.CallToolResult r) {
        return r.meta() == null ? null : (String) r.meta().get("dev.toolbus/error_code");
    }

    private static String text(McpSchema.CallToolResult r) {
        return ((McpSchema.TextContent) r.content().get(0)).text();
    }

    @Test
    void accept_runsTheHighRiskTool_afterAskingWithTheApprovalText() {
        List<String> asked = new CopyOnWriteArrayList<>();
        McpAsyncClient c = client(McpSchema.ElicitResult.Action.ACCEPT, asked);
        try {
            McpSchema.CallToolResult r = c.callTool(new McpSchema.CallToolRequest("wipe", Map.of())).block(WAIT);
            assertThat(r.isError()).as(text(r)).isNotEqualTo(Boolean.TRUE);
            assertThat(text(r)).isEqualTo("wiped 1");
            assertThat(asked).singleElement().asString().contains("wipe").contains("high");
            McpSchema.CallToolResult low = c.callTool(new McpSchema.CallToolRequest("read", Map.of())).block(WAIT);
            assertThat(text(low)).isEqualTo("read");
            assertThat(asked).as("a low-risk tool runs without asking under auto").hasSize(1);
        } finally {
            c.closeGracefully().block(WAIT);
        }
    }

    @Test
    void decline_isNotApproved_andTheToolNeverRuns() {
        List<String> asked = new CopyOnWriteArrayList<>();
        McpAsyncClient c = client(McpSchema.ElicitResult.Action.DECLINE, asked);
        try {
            McpSchema.CallToolResult r = c.callTool(new McpSchema.CallToolRequest("wipe", Map.of())).block(WAIT);
            assertThat(r.isError()).isTrue();
            assertThat(code(r)).isEqualTo("NOT_APPROVED");
            assertThat(asked).hasSize(1);
            assertThat(wiped).hasValue(0);
        } finally {
            c.closeGracefully().block(WAIT);
        }
    }

    @Test
    void aClientThatCannotBeAsked_isDeniedAtOnce() {
        McpAsyncClient c = client(null, List.of());
        try {
            long t0 = System.nanoTime();
            McpSchema.CallToolResult r = c.callTool(new McpSchema.CallToolRequest("wipe", Map.of())).block(WAIT);
            assertThat(code(r)).isEqualTo("NOT_APPROVED");
            assertThat(wiped).hasValue(0);
            // not the 30 s expiry of the request: nobody could have answered it
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(15));
        } finally {
            c.closeGracefully().block(WAIT);
        }
    }

    @Test
    void aToolThePolicyHides_isNotListed_andItsCallIsRefusedWithThePolicysCode() {
        McpAsyncClient c = client(null, List.of());
        try {
            assertThat(c.listTools().block(WAIT).tools()).extracting(McpSchema.Tool::name)
                    .contains("wipe", "read").doesNotContain("secret");
            McpSchema.CallToolResult r = c.callTool(new McpSchema.CallToolRequest("secret", Map.of())).block(WAIT);
            assertThat(r.isError()).isTrue();
            assertThat(code(r)).isEqualTo("PERMISSION_DENIED");
            assertThat(text(r)).doesNotContain("secret ran");
            assertThatThrownBy(() -> c.callTool(new McpSchema.CallToolRequest("no_such_tool", Map.of())).block(WAIT))
                    .isInstanceOf(io.modelcontextprotocol.spec.McpError.class).hasMessageContaining("Unknown tool");
        } finally {
            c.closeGracefully().block(WAIT);
        }
    }
}
