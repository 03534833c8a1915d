package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.InputAction;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.Risk;
import dev.toolbus.protocol.SendMessageEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolProgressEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The countdown tools of the Python and Node examples: progress, send, ask and cancel with real processes. */
class ExampleConversationTest extends PluginFixture {

    private StdioPluginHost host;

    private ToolExecutor executor() {
        host = load(ExamplePluginsTest.EXAMPLES);
        ToolRegistry registry = ToolRegistry.create();
        host.registerInto(registry);
        ToolExecutor ex = ToolExecutor.builder().registry(registry)
                .settings(ExecutionSettings.builder().cacheResults(false).timeoutMs(60_000).build()).build();
        closeLater(ex);
        return ex;
    }

    private long pid(String plugin) {
        return host.plugins().stream().filter(s -> s.id().equals(plugin)).findFirst().orElseThrow().pid();
    }

    private static String plugin(String lang) {
        return lang.equals("py") ? "python-echo" : "node-echo";
    }

    @ParameterizedTest
    @ValueSource(strings = {"py", "node"})
    void cancelDuringALongCountdown_endsCancelledWithinASecond_andThePluginStaysUp(String lang) {
        ToolExecutor ex = executor();
        long pid = pid(plugin(lang));
        ConversationFixture turn = ConversationFixture.start(ex, "s-" + lang,
                ToolCall.ofJson("long", lang + "_countdown", "{\"seconds\":30}"));
        turn.awaitFirst(ToolProgressEvent.class); // the plugin is in its 30 s wait

        long t0 = System.nanoTime();
        ex.control(CancelEvent.builder().streamId(turn.streamId).turnId(turn.turnId).toolCallId("long").reason("stop")
                .build()).block(WAIT);
        ToolResultEvent r = turn.awaitResult("long");

        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(1));
        assertThat(r.error().code()).isEqualTo(ErrorCode.CANCELLED);
        // the plugin answered the cancel and is still the same process for the next call
        ToolResultEvent next = call(ex, lang + "_countdown", "{\"seconds\":0}");
        assertThat(next.content()).isEqualTo("counted 0");
        assertThat(pid(plugin(lang))).isEqualTo(pid);
        assertThat(host.plugins().stream().filter(s -> s.id().equals(plugin(lang))).findFirst().orElseThrow().starts())
                .isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"py", "node"})
    void progressInOrder_thenTheMessage_thenTheResult(String lang) {
        ToolExecutor ex = executor();
        assertThat(host.tools().stream().filter(s -> s.name().equals(lang + "_countdown")).findFirst().orElseThrow()
                .definition().risk()).isEqualTo(Risk.LOW);
        ConversationFixture turn = ConversationFixture.start(ex, "p-" + lang,
                ToolCall.ofJson("c", lang + "_countdown", "{\"seconds\":2}"));
        ToolResultEvent r = turn.awaitResult("c");

        assertThat(r.content()).isEqualTo("counted 2");
        List<ToolProgressEvent> progress = turn.all(ToolProgressEvent.class);
        assertThat(progress).extracting(ToolProgressEvent::progress).containsExactly(0.0, 1.0);
        assertThat(progress).extracting(ToolProgressEvent::message).containsExactly("2 left", "1 left");
        assertThat(progress.get(0).total()).isEqualTo(2.0);
        SendMessageEvent sent = turn.all(SendMessageEvent.class).get(0);
        assertThat(sent.messageId()).isEqualTo("c:msg:1");
        assertThat(sent.content().get(0).text()).isEqualTo("Countdown over!");
        assertThat(turn.indexOf(progress.get(1))).isLessThan(turn.indexOf(sent));
        assertThat(turn.indexOf(sent)).isLessThan(turn.indexOf(r));
    }

    @ParameterizedTest
    @ValueSource(strings = {"py", "node"})
    void ask_roundTrip_theAnswerReachesThePlugin(String lang) throws Exception {
        ToolExecutor ex = executor();
        ConversationFixture turn = ConversationFixture.start(ex, "a-" + lang,
                ToolCall.ofJson("q", lang + "_countdown", "{\"seconds\":0,\"ask\":true}"));
        InputRequestEvent question = turn.awaitFirst(InputRequestEvent.class);
        assertThat(question.message()).isEqualTo("Which city?");
        assertThat(question.schema().path("properties").has("city")).isTrue();

        ex.control(new InputResponseEvent(turn.streamId, question.inputId(), InputAction.ACCEPT,
                Json.mapper().readTree("{\"city\":\"Paris\"}"))).block(WAIT);

        assertThat(turn.awaitResult("q").content()).isEqualTo("counted 0 for Paris");
        // a decline is an answer too
        ConversationFixture again = ConversationFixture.start(ex, "a-" + lang,
                ToolCall.ofJson("q2", lang + "_countdown", "{\"seconds\":0,\"ask\":true}"));
        InputRequestEvent second = Awaitility.await().atMost(WAIT).until(
                () -> again.all(InputRequestEvent.class).stream().findFirst().orElse(null), e -> e != null);
        ex.control(new InputResponseEvent(again.streamId, second.inputId(), InputAction.DECLINE, null)).block(WAIT);
        assertThat(again.awaitResult("q2").content()).isEqualTo("no city given (decline)");
    }
}
