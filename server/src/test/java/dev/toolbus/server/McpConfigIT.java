package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

/**
 * Issue 21 H1: {@code toolbus mcp --config} honours the config's {@code approval} and {@code limits}
 * (it assembles like {@code serve}). A real {@code toolbus mcp} process with the sample tools and the
 * MCP Java SDK's client: under {@code approval.mode: auto} the high-risk {@code wipe} is asked for
 * with {@code elicitation/create} (never run without an answer): a decline is {@code NOT_APPROVED},
 * an accept runs it, a client that cannot be asked is denied; and a limit of 2 {@code add} calls per
 * user holds (the third and fourth are refused). Over stdio and over streamable HTTP.
 */
class McpConfigIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String JAR = Path.of(System.getProperty("toolbus.jar", "target/toolbus-server.jar"))
            .toAbsolutePath().toString();
    private static final String CONFIG = """
            approval:
              mode: auto
              timeoutMs: 30000
              high: [wipe]
              bypass: [add, echo]
            limits:
              rules:
                - {name: two-adds, tools: [add], rate: 2, periodMs: 3600000, per: user}
            """;

    private record Client(McpAsyncClient client, AtomicReference<McpSchema.ElicitResult.Action> answer,
                          List<String> asked) {
    }

    private static Client client(McpClientTransport transport, boolean canElicit) {
        AtomicReference<McpSchema.ElicitResult.Action> answer = new AtomicReference<>(McpSchema.ElicitResult.Action.DECLINE);
        List<String> asked = new CopyOnWriteArrayList<>();
        McpClient.AsyncSpec spec = McpClient.async(transport).requestTimeout(WAIT).initializationTimeout(WAIT);
        if (canElicit) {
            spec.capabilities(McpSchema.ClientCapabilities.builder().elicitation().build()).elicitation(r -> {
                asked.add(r.message());
                McpSchema.ElicitResult.Action a = answer.get();
                return Mono.just(new McpSchema.ElicitResult(a, a == McpSchema.ElicitResult.Action.ACCEPT ? Map.of() : null));
            });
        }
        McpAsyncClient c = spec.build();
        c.initialize().block(WAIT);
        return new Client(c, answer, asked);
    }

    private static String code(McpSchema.CallToolResult r) {
        return r.meta() == null ? null : (String) r.meta().get("dev.toolbus/error_code");
    }

    private static String text(McpSchema.CallToolResult r) {
        return ((McpSchema.TextContent) r.content().get(0)).text();
    }

    private static McpSchema.CallToolResult call(Client c, String tool, Map<String, Object> args) {
        return c.client().callTool(new McpSchema.CallToolRequest(tool, args)).block(WAIT);
    }

    /** The approval and limit behaviour the config asks for. */
    private static void assertApprovalAndLimits(Client c) {
        McpSchema.CallToolResult declined = call(c, "wipe", Map.of("target", "disk"));
        assertThat(c.asked()).as("the high-risk tool asks first").hasSize(1);
        assertThat(c.asked().get(0)).contains("wipe").contains("high");
        assertThat(declined.isError()).isTrue();
        assertThat(code(declined)).isEqualTo("NOT_APPROVED");

        c.answer().set(McpSchema.ElicitResult.Action.ACCEPT);
        McpSchema.CallToolResult approved = call(c, "wipe", Map.of("target", "disk"));
        assertThat(c.asked()).hasSize(2);
        assertThat(approved.isError()).as(text(approved)).isNotEqualTo(Boolean.TRUE);
        assertThat(text(approved)).isEqualTo("wiped disk");

        List<String> codes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            McpSchema.CallToolResult r = call(c, "add", Map.of("a", 1, "b", i));
            codes.add(Boolean.TRUE.equals(r.isError()) ? code(r) : "ok");
        }
        assertThat(codes).containsExactly("ok", "ok", "RATE_LIMITED", "RATE_LIMITED");
        assertThat(c.asked()).as("add is bypassed: never asked").hasSize(2);
    }

    @Test
    void overStdio_approvalIsAskedAsTheConfigSays_andTheLimitHolds(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("toolbus.yaml"), CONFIG);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        StdioClientTransport transport = new StdioClientTransport(ServerParameters.builder(java)
                .args("-jar", JAR, "mcp", "--config", config.toString(), "--sample-tools", "--user", "u1").build(),
                new JacksonMcpJsonMapper(new ObjectMapper()));
        Client c = client(transport, true);
        try {
            assertApprovalAndLimits(c);
        } finally {
            c.client().closeGracefully().block(WAIT);
        }
    }

    @Test
    void overHttp_approvalIsAskedAsTheConfigSays_theLimitHolds_andAClientThatCannotBeAskedIsDenied(@TempDir Path dir)
            throws Exception {
        Path config = Files.writeString(dir.resolve("toolbus.yaml"), CONFIG);
        Path portFile = dir.resolve("port");
        try (ToolbusProcess p = ToolbusProcess.start("mcp-config-http", "mcp", "--http", "127.0.0.1:0", "--port-file",
                portFile.toString(), "--config", config.toString(), "--sample-tools", "--user", "u1")) {
            await().atMost(WAIT).until(() -> Files.exists(portFile) || !p.alive());
            assertThat(p.alive()).as(p.stderr()).isTrue();
            String base = "http://127.0.0.1:" + Files.readString(portFile).strip();
            Client c = client(HttpClientStreamableHttpTransport.builder(base).endpoint("/mcp")
                    .jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper())).build(), true);
            try {
                assertApprovalAndLimits(c);
            } finally {
                c.client().closeGracefully().block(WAIT);
            }
            Client mute = client(HttpClientStreamableHttpTransport.builder(base).endpoint("/mcp")
                    .jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper())).build(), false);
            try {
                McpSchema.CallToolResult r = call(mute, "wipe", Map.of("target", "disk"));
                assertThat(code(r)).as("nobody can be asked: denied, never run").isEqualTo("NOT_APPROVED");
            } finally {
                mute.client().closeGracefully().block(WAIT);
            }
        }
    }
}
