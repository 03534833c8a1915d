package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.spi.ToolPolicy;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * {@code notifications/tools/list_changed}: the MCP Java SDK client over streamable HTTP hears that a
 * tool was registered or removed (the session's standalone SSE stream), and its {@code tools/list}
 * and {@code tools/call} follow; a policy swap told through {@link McpToolServer#refreshTools()}
 * does the same, and a refresh that changes nothing tells nobody.
 */
class McpListChangedTest {

    private static ToolSpec tool(String name, String answer) {
        return new ToolSpec(ToolDefinition.builder(name).description("answers " + answer).build(),
                (a, c) -> Mono.just(ToolResult.text(answer)));
    }

    private static List<String> names(List<McpSchema.Tool> tools) {
        return tools.stream().map(McpSchema.Tool::name).toList();
    }

    @Test
    void registryAndPolicyChanges_reachAnSdkClientOverHttp_asListChanged() {
        ToolPolicy[] policy = {ToolPolicy.allowAll()};
        ToolExecutor executor = ToolExecutor.builder().tool(tool("first", "one"))
                .policy((t, stream, ctx) -> policy[0].decide(t, stream, ctx)).build();
        McpToolServer server = McpToolServer.builder(executor).build();
        McpHttpServer http = server.startHttp("127.0.0.1", 0).block(Duration.ofSeconds(30));
        List<List<String>> heard = new CopyOnWriteArrayList<>();
        URI u = URI.create(http.url());
        McpAsyncClient client = McpClient.async(HttpClientStreamableHttpTransport.builder(u.getScheme() + "://"
                        + u.getRawAuthority()).endpoint(u.getRawPath()).jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper()))
                        .build())
                .toolsChangeConsumer(tools -> Mono.fromRunnable(() -> heard.add(names(tools))))
                .requestTimeout(Duration.ofSeconds(30)).build();
        try {
            McpSchema.InitializeResult init = client.initialize().block(Duration.ofSeconds(30));
            assertThat(init.capabilities().tools().listChanged()).isTrue();
            assertThat(names(client.listTools().block(Duration.ofSeconds(10)).tools())).containsExactly("first");

            executor.registry().register(tool("second", "two"), ToolSource.PLUGIN);
            await().atMost(Duration.ofSeconds(10)).until(() -> heard.stream().anyMatch(l -> l.contains("second")));
            assertThat(names(client.listTools().block(Duration.ofSeconds(10)).tools())).containsExactlyInAnyOrder("first",
                    "second");
            McpSchema.CallToolResult r = client.callTool(new McpSchema.CallToolRequest("second", java.util.Map.of()))
                    .block(Duration.ofSeconds(10));
            assertThat(((McpSchema.TextContent) r.content().get(0)).text()).isEqualTo("two");

            executor.registry().removeIf(e -> e.tool().name().equals("first"));
            await().atMost(Duration.ofSeconds(10)).until(() -> heard.get(heard.size() - 1).equals(List.of("second")));
            McpSchema.CallToolResult gone = client.callTool(new McpSchema.CallToolRequest("first", java.util.Map.of()))
                    .onErrorResume(e -> Mono.just(McpSchema.CallToolResult.builder().isError(true)
                            .addTextContent(e.getMessage()).build()))
                    .block(Duration.ofSeconds(10));
            assertThat(gone.isError()).isTrue();

            // a policy swap is invisible to the registry: whoever swaps it refreshes
            int before = heard.size();
            policy[0] = (t, stream, ctx) -> t.name().equals("second") ? ToolPolicy.Decision.notAvailable("hidden now")
                    : ToolPolicy.Decision.ALLOW;
            assertThat(server.refreshTools()).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> heard.size() > before);
            assertThat(heard.get(heard.size() - 1)).isEmpty();
            assertThat(server.refreshTools()).isFalse();
        } finally {
            client.closeGracefully().block(Duration.ofSeconds(10));
            http.close();
            executor.close();
        }
    }
}
