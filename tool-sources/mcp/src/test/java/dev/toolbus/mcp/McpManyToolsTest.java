package dev.toolbus.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.client.McpToolSource;
import dev.toolbus.mcp.fixtures.NodeTools;
import dev.toolbus.mcp.fixtures.Turns;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.method.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 21, low: a server listing 60,000 tools cost minutes of clash checks (each name compared with
 * every registered one). Against a real MCP server (the TypeScript SDK's, {@code many-server.mjs}, over
 * stdio): the tools are named and registered in one batch (the registry's listeners hear of it once),
 * the one case-insensitive clash with a core tool is still found and renamed, and the last tool runs.
 */
class McpManyToolsTest {

    private static final int TOOLS = 60_000;
    private McpToolSource source;
    private ToolExecutor executor;

    @AfterEach
    void stop() {
        if (executor != null) {
            executor.close();
        }
        if (source != null) {
            source.closeGracefully().block(Duration.ofSeconds(30));
        }
    }

    @Test
    void sixtyThousandToolsAreRegisteredInOneBatch_withTheirClashFound(@TempDir Path tmp) throws Exception {
        Path dir = NodeTools.install();
        Path file = tmp.resolve("mcp-servers.json"); // the source may watch it while the test runs
        Files.writeString(file, "{\"servers\":{\"big\":{\"type\":\"stdio\",\"command\":\"node\",\"args\":[\"many-server.mjs\",\""
                + TOOLS + "\"],\"cwd\":" + new ObjectMapper().writeValueAsString(dir.toString()) + "}}}");
        ToolRegistry registry = ToolRegistry.create();
        registry.register(Tools.function("echo", "core echo", s -> "core"), ToolSource.CORE);
        AtomicInteger changes = new AtomicInteger();
        registry.onChange(changes::incrementAndGet);
        source = McpToolSource.builder().serversFile(file).build().connect(registry).block(Duration.ofMinutes(2));

        assertThat(changes.get()).as("the registry's listeners hear of the batch once").isEqualTo(1);
        assertThat(registry.entries()).hasSize(1 + TOOLS + 1);
        assertThat(registry.find("echo").source()).as("the core tool stays").isEqualTo(ToolSource.CORE);
        assertThat(registry.find("big__Echo")).as("a case-insensitive clash is renamed").isNotNull();
        assertThat(source.diagnostics()).singleElement().satisfies(d -> assertThat(d.toString()).contains("big__Echo"));

        executor = ToolExecutor.builder().registry(registry).build();
        List<OutboundEvent> events = executor.execute(new ToolCallsEvent("many", "turn-1",
                List.of(ToolCall.of("c1", "t59999", Turns.args("{}"))), CallContext.EMPTY, null, null))
                .collectList().block(Duration.ofSeconds(60));
        assertThat(events).filteredOn(e -> e instanceof ToolResultEvent).singleElement()
                .satisfies(e -> assertThat(((ToolResultEvent) e).content()).isEqualTo("many: t59999"));
    }
}
