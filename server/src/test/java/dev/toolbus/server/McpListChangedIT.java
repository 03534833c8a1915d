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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

/**
 * {@code toolbus mcp} as a real process, with the MCP Java SDK's client: a plugin folder changed
 * under it (a ChatAI tool file added, then removed) and a config edit that denies a tool reach the
 * client as {@code notifications/tools/list_changed}, and {@code tools/list} and {@code tools/call}
 * follow. Over stdio (the SDK spawns {@code toolbus mcp}) and over streamable HTTP ({@code --http}).
 */
class McpListChangedIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String JAR = Path.of(System.getProperty("toolbus.jar", "target/toolbus-server.jar"))
            .toAbsolutePath().toString();

    private static String tool(String name, String answer) {
        return "export default { name: '" + name + "', description: 'answers " + answer + "',\n"
                + "  inputSchema: { type: 'object', properties: {} },\n"
                + "  handler: async () => ({ text: '" + answer + "' }) }\n";
    }

    private static List<String> names(List<McpSchema.Tool> tools) {
        return tools.stream().map(McpSchema.Tool::name).toList();
    }

    private static McpAsyncClient client(McpClientTransport transport, List<List<String>> heard) {
        return McpClient.async(transport)
                .toolsChangeConsumer(tools -> Mono.fromRunnable(() -> heard.add(names(tools))))
                .requestTimeout(WAIT).initializationTimeout(WAIT).build();
    }

    private static String text(McpSchema.CallToolResult r) {
        return ((McpSchema.TextContent) r.content().get(0)).text();
    }

    @Test
    void overStdio_aPluginFolderChange_isToldAsListChanged_andTheNewToolIsListedAndCalled(@TempDir Path dir)
            throws Exception {
        Path chat = Files.createDirectories(dir.resolve("plugins/chat"));
        Files.writeString(chat.resolve("alpha.js"), tool("alpha", "a"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        StdioClientTransport transport = new StdioClientTransport(ServerParameters.builder(java)
                .args("-jar", JAR, "mcp", "--plugins", dir.resolve("plugins").toString()).build(),
                new JacksonMcpJsonMapper(new ObjectMapper()));
        List<String> stderr = new CopyOnWriteArrayList<>();
        transport.setStdErrorHandler(stderr::add);
        List<List<String>> heard = new CopyOnWriteArrayList<>();
        McpAsyncClient client = client(transport, heard);
        try {
            McpSchema.InitializeResult init = client.initialize().block(WAIT);
            assertThat(init.capabilities().tools().listChanged()).isTrue();
            assertThat(names(client.listTools().block(WAIT).tools())).containsExactly("alpha");

            Files.writeString(chat.resolve("beta.js"), tool("beta", "b"));
            await().atMost(WAIT).until(() -> heard.stream().anyMatch(l -> l.contains("beta")));
            assertThat(names(client.listTools().block(WAIT).tools())).containsExactlyInAnyOrder("alpha", "beta");
            assertThat(text(client.callTool(new McpSchema.CallToolRequest("beta", Map.of())).block(WAIT))).isEqualTo("b");

            Files.delete(chat.resolve("alpha.js"));
            await().atMost(WAIT).until(() -> !heard.isEmpty() && heard.get(heard.size() - 1).equals(List.of("beta")));
            assertThat(names(client.listTools().block(WAIT).tools())).containsExactly("beta");
        } finally {
            client.closeGracefully().block(WAIT);
        }
        assertThat(String.join("\n", stderr)).contains("MCP tool list changed");
    }

    @Test
    void overHttp_aConfigEditThatDeniesATool_isToldAsListChanged(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("toolbus.yaml");
        Files.writeString(config, "tools:\n  deny: []\n");
        Path portFile = dir.resolve("port");
        try (ToolbusProcess p = ToolbusProcess.start("mcp-http", "mcp", "--http", "127.0.0.1:0", "--port-file",
                portFile.toString(), "--config", config.toString(), "--sample-tools")) {
            await().atMost(WAIT).until(() -> Files.exists(portFile) || !p.alive());
            assertThat(p.alive()).as(p.stderr()).isTrue();
            int port = Integer.parseInt(Files.readString(portFile).strip());
            List<List<String>> heard = new CopyOnWriteArrayList<>();
            McpAsyncClient client = client(HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp").jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper())).build(), heard);
            try {
                client.initialize().block(WAIT);
                assertThat(names(client.listTools().block(WAIT).tools())).contains("echo", "add");

                Files.writeString(config, "tools:\n  deny: [echo]\n");
                await().atMost(WAIT).until(() -> heard.stream().anyMatch(l -> l.contains("add") && !l.contains("echo")));
                assertThat(names(client.listTools().block(WAIT).tools())).contains("add").doesNotContain("echo");
                assertThat(text(client.callTool(new McpSchema.CallToolRequest("add", Map.of("a", 1, "b", 2)))
                        .block(WAIT))).contains("3");
            } finally {
                client.closeGracefully().block(WAIT);
            }
            p.terminate();
            p.awaitExit(WAIT); // 143: the JVM's code for SIGTERM, after the shutdown hook's ordered stop
            assertThat(p.stderr()).contains("MCP tool list changed").contains("MCP server stopped");
        }
    }
}
