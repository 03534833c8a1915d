package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.fixtures.ConformanceServerMain;
import dev.toolbus.mcp.fixtures.ConformanceTools;
import dev.toolbus.mcp.fixtures.ModernConformanceTools;
import dev.toolbus.mcp.fixtures.NodeTools;
import dev.toolbus.tool.ToolSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The official TypeScript client 2.x pinned to MCP 2026-07-28, with {@code @modelcontextprotocol/ext-tasks}
 * for the Tasks extension ({@code src/test/node/modern-client.mjs}), against toolbus's MCP server over
 * stdio (the server in its own JVM) and over HTTP: the era is modern (server/discover), tools are
 * listed and called, progress arrives as {@code notifications/progress}, a question comes back as
 * {@code input_required} and the client's elicitation handler answers it on the retry, a long call
 * becomes a task and runs to completion, a task's question is answered with {@code tasks/update}, a
 * cancelled task ends {@code cancelled} and its tool saw the cancel, and a tool list change reaches the
 * client through its {@code subscriptions/listen} stream.
 */
class NodeModernClientTest {

    static void assertModern(JsonNode out) {
        assertThat(out.path("era").asText()).as("%s", out).isEqualTo("modern");
        List<String> tools = new ArrayList<>();
        out.path("tools").forEach(t -> tools.add(t.asText()));
        assertThat(tools).contains("echo", "slow_compute", "confirm_delete", "test_tool_with_progress");
        assertThat(out.path("echo").asText()).isEqualTo("hi");
        JsonNode progress = out.path("progress");
        assertThat(progress).as("%s", out).hasSize(3);
        assertThat(progress.get(2).path("progress").asDouble()).isEqualTo(100);
        assertThat(out.path("elicited").asText()).isEqualTo("Hello, Ada!");
        assertThat(out.path("asked").get(0).asText()).isEqualTo("What is your name?");
        assertThat(out.path("taskKind").asText()).isEqualTo("task");
        assertThat(out.path("taskText").asText()).isEqualTo("computed ts2");
        assertThat(out.path("taskStatuses").toString()).contains("\"working\"").contains("\"completed\"");
        assertThat(out.path("questionTaskKind").asText()).isEqualTo("task");
        assertThat(out.path("questionTaskText").asText()).isEqualTo("deleted notes.txt");
        assertThat(out.path("cancelKind").asText()).isEqualTo("task");
        assertThat(out.path("cancelOutcome").asText()).isEqualTo("cancelled");
        assertThat(out.path("toolCancels").asInt()).as("the cancelled task's tool saw its cancel").isEqualTo(1);
        assertThat(out.path("toolChanges").toString()).as("a list change heard on subscriptions/listen")
                .contains("conformance_dynamic_tool");
    }

    @Test
    void overStdio() throws Exception {
        Path dir = NodeTools.install();
        List<String> args = new ArrayList<>(List.of("modern-client.mjs", "stdio"));
        args.addAll(NodeTools.javaMain(ConformanceServerMain.class.getName(), "--task-after-ms", "100",
                "--task-poll-ms", "100", "--max-parallel", "20"));
        assertModern(NodeTools.runScript(dir, args));
    }

    @Test
    void overHttp() throws Exception {
        Path dir = NodeTools.install();
        McpSampling sampling = McpSampling.create();
        List<ToolSpec> tools = new ArrayList<>(McpDemoTools.all());
        tools.addAll(ConformanceTools.all(sampling));
        tools.addAll(ModernConformanceTools.all(sampling));
        try (ToolExecutor executor = ToolExecutor.builder().tools(tools)
                .settings(ExecutionSettings.builder().maxParallel(20).build()).build()) {
            ModernConformanceTools.REGISTRY.set(executor.registry());
            try (McpHttpServer http = McpToolServer.builder(executor).sampling(sampling)
                    .taskAfter(Duration.ofMillis(100)).taskPollInterval(Duration.ofMillis(100)).build()
                    .startHttp("127.0.0.1", 0).block(Duration.ofSeconds(10))) {
                assertModern(NodeTools.runScript(dir, List.of("modern-client.mjs", "http", http.url())));
                Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> executor.inflight() == 0);
            }
        }
    }
}
