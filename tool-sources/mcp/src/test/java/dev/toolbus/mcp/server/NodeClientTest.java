package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.fixtures.NodeTools;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The example client of docs/examples/mcp-client, written with the official TypeScript SDK, calling
 * toolbus's MCP server: over stdio (the client spawns {@link McpServerMain} in a new JVM) and over
 * streamable HTTP (a server in this JVM).
 */
class NodeClientTest {

    static JsonNode runClient(Path dir, List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("node", "client.mjs"));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        File err = File.createTempFile("node-client", ".err");
        pb.redirectError(err);
        Process p = null;
        try {
            p = pb.start();
            byte[] out = p.getInputStream().readAllBytes();
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
            String stderr = java.nio.file.Files.readString(err.toPath());
            assertThat(p.exitValue()).as("node client failed:\n" + stderr).isZero();
            return new ObjectMapper().readTree(out);
        } finally {
            NodeTools.endAndDelete(p, err.toPath());
        }
    }

    static void assertSampleCalls(JsonNode out) {
        assertThat(out.path("server").path("name").asText()).isEqualTo("toolbus");
        List<String> tools = new ArrayList<>();
        out.path("tools").forEach(t -> tools.add(t.asText()));
        assertThat(tools).containsExactly("echo", "add", "draw");
        JsonNode calls = out.path("calls");
        assertThat(calls.path("echo").path("text").asText()).isEqualTo("hello from node");
        assertThat(calls.path("echo").path("isError").asBoolean()).isFalse();
        assertThat(calls.path("add").path("text").asText()).isEqualTo("42");
        assertThat(calls.path("add").path("structured").path("sum").asInt()).isEqualTo(42);
        assertThat(calls.path("draw").path("images").get(0).path("mimeType").asText()).isEqualTo("image/png");
        assertThat(calls.path("draw").path("images").get(0).path("bytes").asInt()).isPositive();
        assertThat(calls.path("missing").path("isError").asBoolean()).isTrue();
        assertThat(calls.path("missing").path("text").asText()).contains("text");
    }

    @Test
    void officialClient_overStdio() throws Exception {
        Path dir = NodeTools.install();
        List<String> args = new ArrayList<>(List.of("stdio"));
        args.addAll(NodeTools.javaMain(McpServerMain.class.getName()));
        JsonNode out = runClient(dir, args);
        assertThat(out.path("transport").asText()).isEqualTo("stdio");
        assertSampleCalls(out);
    }

    @Test
    void officialClient_overHttp() throws Exception {
        Path dir = NodeTools.install();
        try (ToolExecutor executor = ToolExecutor.builder().tools(McpDemoTools.all()).build();
             McpHttpServer http = McpToolServer.builder(executor).build().startHttp("127.0.0.1", 0)
                     .block(Duration.ofSeconds(10))) {
            JsonNode out = runClient(dir, List.of("http", http.url()));
            assertThat(out.path("transport").asText()).isEqualTo("http");
            assertThat(out.path("protocol").asText()).isEqualTo("2025-11-25");
            assertSampleCalls(out);
        }
    }
}
