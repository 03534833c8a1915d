package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.SendMessageEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 10, "calls with every return shape", through the Java executor and the real hosts: the return
 * formats of ChatAI's documentation and OpenClaw's {@code execute} answers as the model gets them, and
 * MaiBot's seed {@code greet}, which greets on every call (plugin results are not cached) although the
 * executor's cache is on.
 */
class FrameworkResultsTest extends PluginFixture {

    private static final String PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4//8/AAX+Av5B4iG8AAAAAElFTkSuQmCC";

    /** The return formats of ChatAI's "Return Format" section, each as one tool. */
    private static final String CHATAI = """
            const PNG = '%s';
            const tool = (name, handler) => ({ name, description: name, inputSchema: { type: 'object', properties: {} }, handler });
            export default [
              tool('simple_text', async () => ({ text: 'Result text' })),
              tool('structured', async () => ({ success: true, data: { key: 'value' } })),
              tool('extra_info', async () => ({ text: 'Current time: 14:30', datetime: '2024-12-15T06:30:00.000Z',
                timestamp: 1702622400000 })),
              tool('thrown', async () => { throw new Error('Operation failed: Permission denied'); }),
              tool('error_object', async () => ({ error: true, message: 'Operation failed' })),
              tool('plain_string', async () => 'just a string'),
              tool('with_image', async () => ({ text: 'a chart', content_items: [{ type: 'image', data: PNG,
                mime_type: 'image/png' }] })),
            ];
            """.formatted(PNG);

    private static final String OPENCLAW = """
            const PNG = '%s';
            const tool = (name, execute) => ({ name, description: name, parameters: { type: 'object', properties: {} }, execute });
            export default function (api) {
              api.registerTool(tool('two_texts', async () => ({ content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] })));
              api.registerTool(tool('text_and_image', async () => ({ content: [{ type: 'text', text: 'a chart' },
                { type: 'image', data: PNG, mimeType: 'image/png' }] })));
              api.registerTool(tool('bare_string', async () => 'bare'));
              api.registerTool(tool('other_value', async () => ({ rows: 2 })));
              api.registerTool(tool('throws', async () => { throw new Error('exploded'); }));
            }
            """.formatted(PNG);

    private StdioPluginHost host;
    private ToolExecutor ex;

    @BeforeEach
    void loadPlugins() throws IOException {
        Files.writeString(Files.createDirectories(root.resolve("chat")).resolve("returns.mjs"), CHATAI);
        Path claw = Files.createDirectories(root.resolve("claw"));
        Files.writeString(claw.resolve("openclaw.plugin.json"), "{\"id\":\"claw\"}");
        Files.writeString(claw.resolve("index.mjs"), OPENCLAW);
        Path greet = Files.createDirectories(root.resolve("maibot-greet"));
        Files.copy(Path.of("../../docs/examples/frameworks/maibot-greet/plugin.py"), greet.resolve("plugin.py"));
        host = load(root);
        assertThat(host.skipped()).isEmpty();
        ToolRegistry registry = ToolRegistry.create();
        host.registerInto(registry);
        // the cache is on, as by default: plugin tools still run on every call
        ex = ToolExecutor.builder().registry(registry)
                .settings(ExecutionSettings.builder().cacheResults(true).timeoutMs(20_000).build()).build();
        closeLater(ex);
    }

    private static String json(Object data) {
        return Json.mapper().valueToTree(data).toString();
    }

    @Test
    void chataisReturnFormats_reachTheModelAsItsDocumentationDescribes() {
        ToolResultEvent text = call(ex, "simple_text", "{}");
        assertThat(text.isError()).isFalse();
        assertThat(text.content()).isEqualTo("Result text");

        ToolResultEvent structured = call(ex, "structured", "{}");
        assertThat(structured.isError()).isFalse();
        assertThat(json(structured.data())).isEqualTo("{\"success\":true,\"data\":{\"key\":\"value\"}}");
        assertThat(structured.content()).contains("\"key\"").contains("\"value\"");

        ToolResultEvent extra = call(ex, "extra_info", "{}");
        assertThat(extra.isError()).isFalse();
        assertThat(extra.content()).isEqualTo("Current time: 14:30");
        assertThat(json(extra.data())).contains("\"datetime\":\"2024-12-15T06:30:00.000Z\"")
                .contains("\"timestamp\":1702622400000");

        for (String tool : List.of("thrown", "error_object")) {
            ToolResultEvent error = call(ex, tool, "{}");
            assertThat(error.error()).as(tool).isNotNull();
            assertThat(error.error().code()).isEqualTo(ErrorCode.TOOL_ERROR);
            assertThat(error.content()).contains(tool.equals("thrown") ? "Operation failed: Permission denied"
                    : "Operation failed");
        }
        assertThat(call(ex, "plain_string", "{}").content()).isEqualTo("just a string");
        // toolbus's addition: content_items (MaiBot's media field) next to the text become media
        ToolResultEvent image = call(ex, "with_image", "{}");
        assertThat(image.isError()).as(image.content()).isFalse();
        assertThat(image.content()).startsWith("a chart").contains("<tool_result_media_list>");
        assertThat(image.media()).singleElement().satisfies(m -> assertThat(m.mimeType()).isEqualTo("image/png"));
    }

    @Test
    void openclawsContentParts_becomeTextAndMedia() {
        assertThat(call(ex, "two_texts", "{}").content()).isEqualTo("one\ntwo");
        ToolResultEvent image = call(ex, "text_and_image", "{}");
        assertThat(image.isError()).as(image.content()).isFalse();
        assertThat(image.content()).startsWith("a chart").contains("<tool_result_media_list>");
        assertThat(image.media()).singleElement().satisfies(m -> assertThat(m.mimeType()).isEqualTo("image/png"));
        assertThat(call(ex, "bare_string", "{}").content()).isEqualTo("bare");
        ToolResultEvent other = call(ex, "other_value", "{}");
        assertThat(other.isError()).isFalse();
        assertThat(json(other.data())).isEqualTo("{\"rows\":2}");
        ToolResultEvent thrown = call(ex, "throws", "{}");
        assertThat(thrown.error().code()).isEqualTo(ErrorCode.TOOL_ERROR);
        assertThat(thrown.content()).contains("exploded");
    }

    @Test
    void maibotsSeedGreet_greetsOnEveryCall_andTheActionAnswersItsTuple() {
        for (int i = 1; i <= 2; i++) {
            List<OutboundEvent> events = ex.execute(ToolCallsEvent.of("chat-1", "greet-" + i,
                    List.of(ToolCall.ofJson("g" + i, "greet", "{\"stream_id\":\"chat-1\"}")))).collectList().block(WAIT);
            List<SendMessageEvent> sent = events.stream().filter(e -> e instanceof SendMessageEvent)
                    .map(e -> (SendMessageEvent) e).toList();
            assertThat(sent).as("call %d", i).singleElement().satisfies(m -> {
                assertThat(m.content()).extracting(ContentPart::text).containsExactly("你好！");
                assertThat(m.streamId()).isEqualTo("chat-1");
            });
            ToolResultEvent result = results(events).get(0);
            assertThat(result.cached()).isFalse();
            assertThat(result.isError()).as(result.content()).isFalse();
            assertThat(json(result.data())).isEqualTo("{\"success\":true,\"message\":\"已回复\"}");
        }
        ToolResultEvent wave = call(ex, "wave", "{\"target\":\"Mai\"}");
        assertThat(wave.isError()).isFalse();
        assertThat(wave.content()).isEqualTo("向Mai挥手");
        assertThat(Stream.of(host.plugins().toArray(StdioPluginStatus[]::new)))
                .allSatisfy(s -> assertThat(s.starts()).isEqualTo(1));
    }
}
