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
 * The official TypeScript client 1.x on MCP 2025-11-25 ({@code src/test/node/legacy-tasks.mjs}) and
 * the revision's tasks: {@code tools/list} tells each tool's {@code execution.taskSupport},
 * {@code callToolStream} creates a task, polls it and reads its result, a task's question reaches the
 * client as {@code elicitation/create} on {@code tasks/result} with the {@code related-task}
 * {@code _meta}, and {@code tasks/cancel} ends a task {@code cancelled} with its tool having seen the
 * cancel; plain calls, progress and a question keep working. Over stdio and HTTP.
 */
class NodeLegacyTasksTest {

    static void assertLegacy(JsonNode out) {
        assertThat(out.path("taskSupport").path("slow_compute").asText()).as("%s", out).isEqualTo("optional");
        assertThat(out.path("taskSupport").path("confirm_delete").asText()).isEqualTo("required");
        assertThat(out.path("taskSupport").has("echo")).isFalse();
        assertThat(out.path("echo").asText()).isEqualTo("hi");
        assertThat(out.path("progress")).hasSize(3);
        assertThat(out.path("elicited").asText()).isEqualTo("Hello, Ada!");
        JsonNode task = out.path("task");
        assertThat(task.path("text").asText()).as("%s", out).isEqualTo("computed ts1");
        assertThat(task.path("statuses").get(task.path("statuses").size() - 1).asText()).isEqualTo("completed");
        JsonNode question = out.path("questionTask");
        assertThat(question.path("text").asText()).isEqualTo("deleted notes.txt");
        assertThat(out.path("asked").toString()).contains("Delete notes.txt?")
                .contains(question.path("taskId").asText());
        JsonNode cancelled = out.path("cancelled");
        assertThat(out.path("cancelAnswer").asText()).isEqualTo("cancelled");
        assertThat(cancelled.path("statuses").get(cancelled.path("statuses").size() - 1).asText()).isEqualTo("cancelled");
        assertThat(out.path("toolCancels").asInt()).as("the cancelled task's tool saw its cancel").isEqualTo(1);
    }

    @Test
    void overStdio() throws Exception {
        Path dir = NodeTools.install();
        List<String> args = new ArrayList<>(List.of("legacy-tasks.mjs", "stdio"));
        args.addAll(NodeTools.javaMain(ConformanceServerMain.class.getName(), "--task-poll-ms", "100",
                "--max-parallel", "20"));
        assertLegacy(NodeTools.runScript(dir, args));
    }

    @Test
    void overHttp() throws Exception {
        Path dir = NodeTools.install();
        McpSampling sampling = McpSampling.create();
        List<ToolSpec> tools = new ArrayList<>(McpDemoTools.all());
        tools.addAll(ConformanceTools.all(sampling));
        tools.addAll(ModernConformanceTools.all(sampling));
        try (ToolExecutor executor = ToolExecutor.builder().tools(tools)
                .settings(ExecutionSettings.builder().maxParallel(20).build()).build();
             McpHttpServer http = McpToolServer.builder(executor).sampling(sampling)
                     .taskPollInterval(Duration.ofMillis(100)).build().startHttp("127.0.0.1", 0)
                     .block(Duration.ofSeconds(10))) {
            JsonNode out = NodeTools.runScript(dir, List.of("legacy-tasks.mjs", "http", http.url()));
            assertThat(out.path("protocolVersion").asText()).isEqualTo("2025-11-25");
            assertLegacy(out);
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> executor.inflight() == 0);
        }
    }
}
