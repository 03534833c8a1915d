package dev.toolbus.mcp.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.mcp.fixtures.FixtureServerMain;
import dev.toolbus.mcp.fixtures.NodeTools;
import dev.toolbus.registry.ToolRegistry;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Servers that cannot be reached are reported, quickly, and do not stop the others. */
class McpToolSourceFailureTest {

    @Test
    void connect_reportsServersThatCannotStartAndKeepsGoing() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        List<String> fixture = NodeTools.javaMain(FixtureServerMain.class.getName());
        McpToolSource source = McpToolSource.builder()
                .server(McpServerConfig.stdio("missing", "/nonexistent/mcp-server", List.of(), Map.of()))
                .server(McpServerConfig.http("refused", "http://127.0.0.1:" + closedPort + "/mcp"))
                .server(McpServerConfig.stdio("fixture", fixture.get(0), fixture.subList(1, fixture.size()), Map.of()))
                .build();
        ToolRegistry registry = ToolRegistry.create();
        long t0 = System.nanoTime();
        try {
            source.connect(registry).block(Duration.ofSeconds(60));
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(40));
            assertThat(source.diagnostics()).filteredOn(d -> d.kind() == McpToolSource.Diagnostic.Kind.SERVER_FAILED)
                    .extracting(McpToolSource.Diagnostic::server).containsExactlyInAnyOrder("missing", "refused");
            assertThat(source.diagnostics()).anySatisfy(d -> assertThat(d.message())
                    .contains("'missing'").contains("/nonexistent/mcp-server"));
            assertThat(registry.find("echo")).isNotNull();
            assertThat(registry.find("echo").tool().definition().pluginId()).isEqualTo("fixture");
        } finally {
            source.closeGracefully().block(Duration.ofSeconds(20));
        }
    }
}
