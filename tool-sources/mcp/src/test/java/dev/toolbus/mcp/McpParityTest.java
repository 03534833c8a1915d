package dev.toolbus.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.client.McpServerConfig;
import dev.toolbus.mcp.client.McpToolSource;
import dev.toolbus.mcp.server.McpHttpServer;
import dev.toolbus.mcp.server.McpToolServer;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import dev.toolbus.tool.method.Tools;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Issue 11 item 5 for MCP tools, against a real MCP server over HTTP: a tool whose name differs only
 * in case from a registered one is renamed {@code <server>__<tool>} (as on an exact clash), and a
 * server named like a core tool is blocked whole.
 */
class McpParityTest {

    ToolExecutor serverExecutor;
    McpHttpServer http;
    McpToolSource source;

    private static ToolSpec tool(String name) {
        return new ToolSpec(ToolDefinition.builder(name).description(name).build(),
                (args, ctx) -> Mono.just(ToolResult.text("mcp " + name)));
    }

    @BeforeEach
    void start() {
        serverExecutor = ToolExecutor.builder().tools(List.of(tool("Web_Fetch"), tool("lookup"))).build();
        http = McpToolServer.builder(serverExecutor).build().startHttp("127.0.0.1", 0).block(Duration.ofSeconds(10));
    }

    @AfterEach
    void stop() {
        if (source != null) {
            source.closeGracefully().block(Duration.ofSeconds(10));
        }
        http.close();
        serverExecutor.closeGracefully().block(Duration.ofSeconds(10));
    }

    private ToolRegistry connect(String serverName, String coreTool) {
        ToolRegistry registry = ToolRegistry.create();
        registry.register(Tools.function(coreTool, "core " + coreTool, s -> "core"), ToolSource.CORE);
        source = McpToolSource.builder().server(McpServerConfig.http(serverName, http.url())).build()
                .connect(registry).block(Duration.ofSeconds(30));
        return registry;
    }

    @Test
    void aToolDifferingOnlyInCase_isRenamedWithTheServerPrefix() {
        ToolRegistry registry = connect("remote", "web_fetch");

        assertThat(registry.definitions()).extracting(ToolDefinition::name)
                .containsExactly("web_fetch", "remote__Web_Fetch", "lookup");
        assertThat(registry.find("remote__Web_Fetch").tool().definition().originalName()).isEqualTo("Web_Fetch");
        assertThat(source.diagnostics()).anySatisfy(d -> {
            assertThat(d.kind()).isEqualTo(McpToolSource.Diagnostic.Kind.RENAMED);
            assertThat(d.message()).contains("'Web_Fetch' is already provided by another tool");
        });
    }

    @Test
    void aServerNamedLikeACoreTool_isBlockedWhole() {
        ToolRegistry registry = connect("Lookup_Server", "lookup_server");

        assertThat(registry.definitions()).extracting(ToolDefinition::name).containsExactly("lookup_server");
        assertThat(registry.diagnostics()).hasSize(2).allSatisfy(d -> assertThat(d.message())
                .contains("the plugin id 'Lookup_Server' clashes with the core tool 'lookup_server'"));
        assertThat(source.tools()).isEmpty();
    }
}
