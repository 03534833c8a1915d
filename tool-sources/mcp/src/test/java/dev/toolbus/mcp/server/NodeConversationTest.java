package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.fixtures.ConformanceServerMain;
import dev.toolbus.mcp.fixtures.ConformanceTools;
import dev.toolbus.mcp.fixtures.NodeTools;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The official TypeScript client against toolbus's MCP server, for conversation control: progress
 * notifications for a request with a progress token, log messages from a tool's {@code send},
 * elicitation answered accept / decline / cancel, a question that expires (the client sees its
 * request cancelled), a call cancelled by the client (the handler sees the cancel), and a tool's
 * {@code sampling/createMessage} (answered by a client that declared {@code sampling}, an error
 * result for one that did not). Over stdio
 * (the server in its own JVM) and over HTTP (SSE responses).
 */
class NodeConversationTest {

    static JsonNode run(Path dir, List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("node", "conversation.mjs"));
        cmd.addAll(args);
        File err = File.createTempFile("node-conversation", ".err");
        Process p = null;
        try {
            p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectError(err).start();
            byte[] out = p.getInputStream().readAllBytes();
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("node failed:\n" + java.nio.file.Files.readString(err.toPath())).isZero();
            return new ObjectMapper().readTree(out);
        } finally {
            NodeTools.endAndDelete(p, err.toPath());
        }
    }

    static void assertConversation(JsonNode out, String action) {
        JsonNode progress = out.path("progress");
        assertThat(progress).as("%s: %s", action, out).hasSize(3);
        assertThat(progress.get(0).path("progress").asDouble()).isEqualTo(0);
        assertThat(progress.get(1).path("progress").asDouble()).isEqualTo(50);
        assertThat(progress.get(2).path("progress").asDouble()).isEqualTo(100);
        assertThat(progress.get(2).path("total").asDouble()).isEqualTo(100);
        assertThat(out.path("progressText").asText()).isEqualTo("progress reported");

        List<String> logs = new ArrayList<>();
        out.path("logs").forEach(l -> {
            assertThat(l.path("level").asText()).isEqualTo("info");
            assertThat(l.path("logger").asText()).isEqualTo(LiveEvents.LOGGER);
            logs.add(l.path("data").asText());
        });
        assertThat(logs).containsExactly("Tool execution started", "Tool processing data", "Tool execution completed");

        assertThat(out.path("asked").get(0).path("message").asText()).isEqualTo("Who are you?");
        assertThat(out.path("asked").get(0).path("schema").path("required").toString()).contains("username");
        String elicited = out.path("elicitedText").asText();
        assertThat(elicited).startsWith("User response: action=" + action);
        if (action.equals("accept")) {
            assertThat(elicited).contains("\"username\":\"ada\"");
        }
        assertThat(out.path("expiredText").asText()).isEqualTo("action=expired");
        assertThat(out.path("expiredAborted").asBoolean()).as("the client saw the expired question cancelled").isTrue();

        if (action.equals("accept")) { // this client declared sampling
            assertThat(out.path("sampled")).as("%s", out).hasSize(1);
            JsonNode req = out.path("sampled").get(0);
            assertThat(req.path("maxTokens").asInt()).isEqualTo(100);
            assertThat(req.path("messages").get(0).path("role").asText()).isEqualTo("user");
            assertThat(req.path("messages").get(0).path("content").path("text").asText()).isEqualTo("Say hi");
            assertThat(out.path("samplingIsError").asBoolean()).isFalse();
            assertThat(out.path("samplingText").asText()).isEqualTo("LLM response: echo: Say hi");
        } else {
            assertThat(out.path("sampled")).isEmpty();
            assertThat(out.path("samplingIsError").asBoolean()).as("%s", out).isTrue();
            assertThat(out.path("samplingText").asText()).contains("did not declare the sampling capability");
        }

        assertThat(out.path("cancelledError").asText()).isNotEmpty();
        assertThat(out.path("serverCancels").asInt()).as("the handler saw the client's cancel").isPositive();
    }

    @Test
    void overStdio_accept() throws Exception {
        Path dir = NodeTools.install();
        List<String> args = new ArrayList<>(List.of("accept", "stdio"));
        args.addAll(NodeTools.javaMain(ConformanceServerMain.class.getName()));
        assertConversation(run(dir, args), "accept");
    }

    @Test
    void overHttp_declineAndCancel() throws Exception {
        Path dir = NodeTools.install();
        List<dev.toolbus.tool.ToolSpec> tools = new ArrayList<>(McpDemoTools.all());
        McpSampling sampling = McpSampling.create();
        tools.addAll(ConformanceTools.all(sampling));
        try (ToolExecutor executor = ToolExecutor.builder().tools(tools).build();
             McpHttpServer http = McpToolServer.builder(executor).parallelCalls(true).sampling(sampling).build()
                     .startHttp("127.0.0.1", 0)
                     .block(Duration.ofSeconds(10))) {
            for (String action : List.of("decline", "cancel")) {
                int before = ConformanceTools.CANCELLED.get();
                assertConversation(run(dir, List.of(action, "http", http.url())), action);
                assertThat(ConformanceTools.CANCELLED.get()).as("test_slow saw its cancel").isGreaterThan(before);
            }
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> executor.inflight() == 0);
        }
    }
}
