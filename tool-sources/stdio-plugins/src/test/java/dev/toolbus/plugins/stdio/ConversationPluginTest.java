package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolProgressEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.protocol.Risk;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 8 §4 with the misbehaving test plugin: context, risk, messages out of place, floods, cancels. */
class ConversationPluginTest extends PluginFixture {

    private ToolExecutor executorWith(StdioPluginHost host, ExecutionSettings settings) {
        ToolRegistry registry = ToolRegistry.create();
        host.registerInto(registry);
        ToolExecutor ex = ToolExecutor.builder().registry(registry).settings(settings).build();
        closeLater(ex);
        return ex;
    }

    private static ExecutionSettings settings() {
        return ExecutionSettings.builder().cacheResults(false).timeoutMs(20_000).build();
    }

    @Test
    void executeTool_carriesTheWholeCallerContextAndTheTriggeringMessage() throws Exception {
        testPlugin("t", "", Map.of());
        ToolExecutor ex = executor(load());
        JsonNode message = Json.mapper().readTree("{\"text\":\"what time is it?\",\"user_id\":\"u7\",\"seq\":3}");
        CallContext ctx = CallContext.builder().userId("u7").groupId("g1").platform("qq").permission("master")
                .channel("web").provider("openai").model("gpt-4o").agentId("helper").build();
        List<OutboundEvent> events = ex.execute(new ToolCallsEvent("s-ctx", "turn-ctx",
                List.of(ToolCall.ofJson("call-ctx", "context", "{}")), ctx, message)).collectList().block(WAIT);

        JsonNode c = Json.mapper().readTree(results(events).get(0).content());
        assertThat(c.path("streamId").asText()).isEqualTo("s-ctx");
        assertThat(c.path("turnId").asText()).isEqualTo("turn-ctx");
        assertThat(c.path("toolCallId").asText()).isEqualTo("call-ctx");
        assertThat(c.path("userId").asText()).isEqualTo("u7");
        assertThat(c.path("groupId").asText()).isEqualTo("g1");
        assertThat(c.path("platform").asText()).isEqualTo("qq");
        assertThat(c.path("permission").asText()).isEqualTo("master");
        assertThat(c.path("channel").asText()).isEqualTo("web");
        assertThat(c.path("provider").asText()).isEqualTo("openai");
        assertThat(c.path("model").asText()).isEqualTo("gpt-4o");
        assertThat(c.path("agentId").asText()).isEqualTo("helper");
        assertThat(c.path("attempt").asInt()).isEqualTo(1);
        assertThat(c.path("message")).isEqualTo(message);
    }

    @Test
    void risk_fromActivateReachesTheDefinition_andAnUnknownRiskSkipsTheTool() {
        testPlugin("t", "", Map.of());
        StdioPluginHost host = load();
        assertThat(def(host, "context").risk()).isEqualTo(Risk.HIGH);
        assertThat(def(host, "late_send").risk()).isEqualTo(Risk.MEDIUM);
        assertThat(def(host, "echo").risk()).isNull();
        assertThat(host.tools()).noneMatch(s -> s.name().equals("bad_risk"));
    }

    private static dev.toolbus.tool.ToolDefinition def(StdioPluginHost host, String name) {
        return host.tools().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow().definition();
    }

    @Test
    void messagesForAFinishedCall_sendAndAskGetOkFalse_progressIsIgnored() throws Exception {
        testPlugin("t", "", Map.of());
        ToolExecutor ex = executor(load());
        List<OutboundEvent> events = turn(ex, ToolCall.ofJson("late", "late_send", "{}"));
        assertThat(results(events).get(0).content()).isEqualTo("done");
        assertThat(events).noneMatch(e -> e instanceof ToolProgressEvent);

        await().atMost(WAIT).until(() -> Json.mapper().readTree(call(ex, "replies", "{}").content()).size() == 2);
        JsonNode replies = Json.mapper().readTree(call(ex, "replies", "{}").content());
        assertThat(replies.get(0).path("rid").asText()).isEqualTo("late-1");
        assertThat(replies.get(0).path("ok").asBoolean(true)).isFalse();
        assertThat(replies.get(0).path("error").asText()).contains("has ended");
        assertThat(replies.get(1).path("rid").isIntegralNumber()).isTrue();
        assertThat(replies.get(1).path("rid").asInt()).isEqualTo(77);
        assertThat(replies.get(1).path("ok").asBoolean(true)).isFalse();
    }

    @Test
    void progressFlood_isCoalescedAndTheResultArrivesAfterIt() {
        testPlugin("t", "", Map.of());
        ToolExecutor ex = executor(load());
        List<OutboundEvent> events = ex.execute(ToolCallsEvent.of("s", "flood",
                List.of(ToolCall.ofJson("f", "flood", "{\"n\":50000}")))).collectList().block(WAIT);

        List<ToolProgressEvent> progress = events.stream().filter(e -> e instanceof ToolProgressEvent)
                .map(e -> (ToolProgressEvent) e).toList();
        assertThat(results(events).get(0).content()).isEqualTo("flooded");
        assertThat(progress).isNotEmpty().hasSizeLessThan(1000);
        // in order, the last one (49999) kept, all of them before the result
        assertThat(progress).extracting(ToolProgressEvent::progress).isSorted();
        assertThat(progress.get(progress.size() - 1).progress()).isEqualTo(49999.0);
        assertThat(events.indexOf(progress.get(progress.size() - 1))).isLessThan(events.indexOf(results(events).get(0)));
    }

    @Test
    void cancel_ofOneCallOnAConcurrentPlugin_isCancelled_theOtherCallAndTheProcessUnharmed() throws Exception {
        testPlugin("c", ",\"concurrent\":true", Map.of("CONCURRENT", "1"));
        StdioPluginHost host = load();
        ToolExecutor ex = executorWith(host, settings());
        long pid = host.plugins().get(0).pid();
        ConversationFixture turn = ConversationFixture.start(ex, "two-users",
                ToolCall.ofJson("a", "wait", "{\"ms\":30000}"), ToolCall.ofJson("b", "wait", "{\"ms\":2000}"));
        await().atMost(WAIT).until(() -> host.pendingCount() == 2);

        ex.control(CancelEvent.builder().streamId("two-users").turnId(turn.turnId).toolCallId("a")
                .reason("user pressed stop").build()).block(WAIT);

        ToolResultEvent a = turn.awaitResult("a");
        assertThat(a.error().code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(turn.awaitResult("b").content()).isEqualTo("waited");
        JsonNode cancels = Json.mapper().readTree(call(ex, "cancels", "{}").content());
        assertThat(cancels).hasSize(1);
        assertThat(cancels.get(0).path("toolCallId").asText()).isEqualTo("a");
        assertThat(host.plugins().get(0).pid()).isEqualTo(pid);
        assertThat(host.plugins().get(0).starts()).isEqualTo(1);
    }

    @Test
    void cancel_ofAPluginThatIgnoresIt_isCancelledAtOnce_andTheProcessIsKilledAfterTheGrace() {
        testPlugin("s", ",\"cancelGraceMs\":700,\"restartBackoffMs\":50", Map.of());
        StdioPluginHost host = load();
        ToolExecutor ex = executorWith(host, settings());
        long first = host.plugins().get(0).pid();
        ConversationFixture turn = ConversationFixture.start(ex, "deaf", ToolCall.ofJson("x", "sleep", "{\"ms\":600000}"));
        await().atMost(WAIT).until(() -> host.pendingCount() == 1);

        ex.control(CancelEvent.builder().streamId("deaf").turnId(turn.turnId).reason("stop").build()).block(WAIT);

        assertThat(turn.awaitResult("x").error().code()).isEqualTo(ErrorCode.CANCELLED);
        awaitGone(first);
        assertThat(call(ex, "echo", "{\"text\":\"again\"}").content()).isEqualTo("again");
        assertThat(host.plugins().get(0).pid()).isNotEqualTo(first);
    }
}
