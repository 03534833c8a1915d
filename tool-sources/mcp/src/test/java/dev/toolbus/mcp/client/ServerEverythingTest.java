package dev.toolbus.mcp.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.McpToolHints;
import dev.toolbus.mcp.fixtures.NodeTools;
import dev.toolbus.mcp.fixtures.Turns;
import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.MediaRef;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.UserMessageEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code @modelcontextprotocol/server-everything} (the reference test server, from npm) as an external
 * stdio server, configured through an {@code mcp-servers.json} in Claude Desktop's shape.
 */
class ServerEverythingTest {

    static McpToolSource source;
    static ToolExecutor executor;
    /** Holds mcp-servers.json; removed after {@link #stop()}. */
    @TempDir
    static Path tmp;

    @BeforeAll
    static void start() throws Exception {
        Path dir = NodeTools.install();
        Path entry = dir.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        Path file = tmp.resolve("mcp-servers.json"); // the source may watch it while the test runs
        Files.writeString(file, "{\"mcpServers\":{\"everything\":{\"command\":\"node\",\"args\":["
                + "\"" + entry.toString().replace("\\", "\\\\") + "\",\"stdio\"]},"
                + "\"off\":{\"command\":\"nope\",\"disabled\":true}}}");
        ToolRegistry registry = ToolRegistry.create();
        source = McpToolSource.builder().serversFile(file).build().connect(registry).block(Duration.ofSeconds(90));
        executor = ToolExecutor.builder().registry(registry)
                .settings(ExecutionSettings.builder().timeoutMs(20_000).build()).build();
    }

    @AfterAll
    static void stop() {
        if (source != null) {
            source.closeGracefully().block(Duration.ofSeconds(20));
        }
        if (executor != null) {
            executor.closeGracefully().block(Duration.ofSeconds(20));
        }
    }

    @Test
    void listTools_registersTheServersTools() {
        assertThat(source.tools()).extracting(ToolSpec::name)
                .contains("echo", "get-sum", "get-tiny-image", "get-resource-links", "get-structured-content");
        assertThat(executor.registry().find("echo").tool().definition().pluginId()).isEqualTo("everything");
        assertThat(source.diagnostics()).anySatisfy(d ->
                assertThat(d.kind()).isEqualTo(McpToolSource.Diagnostic.Kind.DISABLED));
        assertThat(source.serverNames()).containsExactly("everything");
    }

    @Test
    void annotations_areCarriedOntoTheDefinition() {
        var echo = executor.registry().find("echo").tool().definition();
        assertThat(echo.metadata()).containsEntry(McpToolHints.READ_ONLY_HINT, true)
                .containsEntry(McpToolHints.DESTRUCTIVE_HINT, false);
        assertThat(echo.sideEffecting()).isFalse();
        var elicit = executor.registry().find("trigger-elicitation-request").tool().definition();
        assertThat(elicit.metadata()).containsEntry(McpToolHints.READ_ONLY_HINT, false);
        assertThat(elicit.sideEffecting()).isTrue();
    }

    @Test
    void echo_isText() {
        ToolResultEvent r = Turns.result(Turns.run(executor, "echo", "{\"message\":\"hello everything\"}"));
        assertThat(r.isError()).isFalse();
        assertThat(r.content()).isEqualTo("Echo: hello everything");
        assertThat(r.media()).isEmpty();
    }

    @Test
    void getSum_isText() {
        ToolResultEvent r = Turns.result(Turns.run(executor, "get-sum", "{\"a\":19,\"b\":23}"));
        assertThat(r.isError()).isFalse();
        assertThat(r.content()).contains("42");
    }

    @Test
    void tinyImage_arrivesAsAMediaFollowUp() {
        List<OutboundEvent> events = Turns.run(executor, "get-tiny-image", "{}");
        ToolResultEvent r = Turns.result(events);
        assertThat(r.isError()).isFalse();
        assertThat(r.content()).contains("Here's the image you requested").contains("<tool_result_media_list>");
        assertThat(r.media()).extracting(MediaRef::type).containsExactly("image");
        // the follow-up comes after the tool result, before turn_completed
        int resultAt = events.indexOf(r);
        List<UserMessageEvent> media = Turns.media(events);
        assertThat(media).hasSize(1);
        assertThat(events.indexOf(media.get(0))).isGreaterThan(resultAt);
        assertThat(events.get(events.size() - 1).type()).isEqualTo("turn_completed");
        assertThat(media.get(0).toolCallId()).isEqualTo(r.toolCallId());
        ContentPart image = media.get(0).content().get(1);
        assertThat(image.type()).isEqualTo("image");
        assertThat(image.mimeType()).isEqualTo("image/png");
        assertThat(java.util.Base64.getDecoder().decode(image.data())).startsWith(0x89, 'P', 'N', 'G');
    }

    @Test
    void resourceLinks_areMediaItems() {
        ToolResultEvent r = Turns.result(Turns.run(executor, "get-resource-links", "{\"count\":2}"));
        assertThat(r.isError()).isFalse();
        assertThat(r.media()).extracting(MediaRef::type).containsOnly("resource_link").hasSize(2);
    }

    @Test
    void structuredContent_isData() {
        ToolResultEvent r = Turns.result(Turns.run(executor, "get-structured-content", "{\"location\":\"Chicago\"}"));
        assertThat(r.isError()).isFalse();
        assertThat(r.data()).isNotNull();
        assertThat(r.data().toString()).contains("temperature").contains("humidity");
    }

    @Test
    void badArguments_onTheServerSide() {
        // the schema lets the call through here; the server refuses it with an MCP error or isError
        ToolResultEvent r = Turns.result(Turns.run(executor, "get-structured-content", "{\"location\":\"Paris\"}"));
        assertThat(r.isError()).isTrue();
        assertThat(r.error().code()).isIn(ErrorCode.TOOL_ERROR, ErrorCode.TOOL_FAILED, ErrorCode.INVALID_ARGUMENTS);
        assertThat(r.content()).isNotBlank();
    }
}
