package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} with the config's {@code sources.mcp.serversFile}: the tools of a real MCP server
 * process (toolbus's own example MCP server, from the same jar) are listed and called through the
 * gateway, and the server process is stopped with {@code serve}.
 */
class McpServeIT {

    @Test
    void mcpServersFromTheConfig_areCalledThroughTheGateway_andStoppedWithServe(@TempDir Path dir) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String jar = Path.of(System.getProperty("toolbus.jar", "target/toolbus-server.jar")).toAbsolutePath().toString();
        Path servers = dir.resolve("mcp-servers.json");
        Files.writeString(servers, "{\"mcpServers\":{"
                + "\"fixture\":{\"command\":" + RunningServer.JSON.writeValueAsString(java) + ",\"args\":[\"-cp\","
                + RunningServer.JSON.writeValueAsString(jar) + ",\"dev.toolbus.mcp.server.McpServerMain\"]},"
                + "\"off\":{\"command\":\"no-such-command\"}}}");
        Path config = dir.resolve("toolbus.yaml");
        Files.writeString(config, "sources:\n  mcp:\n    serversFile: " + servers + "\n    disabledServers: [off]\n"
                + "gateway:\n  port: 0\n");

        RunningServer s = RunningServer.start("serve-mcp", null, "--config", config.toString());
        try {
            assertThat(s.toolNames("user_id=u1")).containsExactlyInAnyOrder("echo", "add", "draw");
            ToolbusProcess p = ToolbusProcess.run("call-mcp", "call", "--url", s.url(), "add", "{\"a\":40,\"b\":2}");
            assertThat(p.exitCode()).as(p.stderr()).isZero();
            JsonNode result = p.events().get(0);
            assertThat(result.path("is_error").asBoolean()).as(result.toString()).isFalse();
            assertThat(result.path("data").path("sum").asInt()).isEqualTo(42);
            assertThat(result.path("metadata").path("mcp_server").asText()).isEqualTo("fixture");

            Matcher pid = Pattern.compile("MCP server 'fixture' started, pid (\\d+)").matcher(s.process.stderr());
            assertThat(pid.find()).as(s.process.stderr()).isTrue();
            ProcessHandle child = ProcessHandle.of(Long.parseLong(pid.group(1))).orElseThrow();
            s.process.terminate().awaitExit(Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(30)).until(() -> !child.isAlive());
        } finally {
            s.close();
        }
    }
}
