package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.UserMessageEvent;
import dev.toolbus.tool.ToolSpec;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The example plugins of docs/examples/plugins, run as shipped. */
class ExamplePluginsTest extends PluginFixture {

    static final Path EXAMPLES = Path.of("../../docs/examples/plugins");

    @Test
    void examples_pythonAndNodePluginsRunThroughTheExecutorAndStopOnClose() {
        StdioPluginHost host = load(EXAMPLES);
        assertThat(host.plugins()).extracting(StdioPluginStatus::id).containsExactly("node-echo", "python-echo");
        assertThat(host.tools()).extracting(ToolSpec::name)
                .containsExactly("node_echo", "node_upper", "node_countdown", "py_echo", "py_add", "py_pixel",
                        "py_countdown");
        ToolExecutor ex = executor(host);

        List<OutboundEvent> events = turn(ex,
                ToolCall.ofJson("1", "py_echo", "{\"text\":\"hello from python\"}"),
                ToolCall.ofJson("2", "py_add", "{\"a\":2,\"b\":40}"),
                ToolCall.ofJson("3", "node_echo", "{\"text\":\"hello from node\"}"),
                ToolCall.ofJson("4", "node_upper", "{\"text\":\"shout\"}"),
                ToolCall.ofJson("5", "py_pixel", "{}"));
        List<ToolResultEvent> rs = results(events);
        assertThat(rs).allSatisfy(r -> assertThat(r.isError()).as(r.content()).isFalse());
        assertThat(rs.get(0).content()).isEqualTo("hello from python");
        assertThat(((JsonNode) rs.get(1).data()).path("sum").asInt()).isEqualTo(42);
        assertThat(rs.get(2).content()).isEqualTo("hello from node");
        assertThat(rs.get(3).content()).isEqualTo("SHOUT");
        assertThat(rs.get(4).content()).startsWith("here is a pixel");
        assertThat(rs.get(4).media()).hasSize(1);
        assertThat(events).filteredOn(e -> e instanceof UserMessageEvent).singleElement()
                .satisfies(e -> assertThat(((UserMessageEvent) e).toolCallId()).isEqualTo("5"));

        // arguments are checked against the schema from activate before the plugin sees them
        ToolResultEvent badArgs = call(ex, "py_add", "{\"a\":1,\"b\":\"x\"}");
        assertThat(badArgs.error().code()).isEqualTo(dev.toolbus.protocol.ErrorCode.INVALID_ARGUMENTS);

        List<Long> pids = host.plugins().stream().map(StdioPluginStatus::pid).toList();
        assertThat(pids).allMatch(PluginFixture::alive);
        host.closeGracefully().block(WAIT);
        awaitGone(pids.stream().mapToLong(Long::longValue).toArray());
    }

    @Test
    void examples_schemasOfAllThreeDeclarationFormsReachTheModel() {
        StdioPluginHost host = load(EXAMPLES);
        assertThat(schema(host, "py_echo").path("required").toString()).isEqualTo("[\"text\"]");
        assertThat(schema(host, "py_add").path("properties").path("a").path("type").asText()).isEqualTo("number");
        assertThat(schema(host, "node_echo").path("properties").path("text").path("description").asText())
                .isEqualTo("Text to echo");
        assertThat(schema(host, "node_upper").path("required").toString()).isEqualTo("[\"text\"]");
    }

    private static JsonNode schema(StdioPluginHost host, String tool) {
        return host.tools().stream().filter(s -> s.name().equals(tool)).findFirst().orElseThrow()
                .definition().inputSchema();
    }
}
