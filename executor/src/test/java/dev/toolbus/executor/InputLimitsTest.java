package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.results;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.metrics.CallRecord;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.EventDecodeException;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 9: caps on ids, names and calls per turn; duplicate keys and lone surrogates; a bounded call log. */
class InputLimitsTest {

    private final EventCodec codec = EventCodec.defaults();

    private EventDecodeException reject(String json) {
        EventDecodeException s = catchThrowableOfType(EventDecodeException.class, () -> codec.decode(json));
        EventDecodeException b = catchThrowableOfType(EventDecodeException.class,
                () -> codec.decode(json.getBytes(StandardCharsets.UTF_8)));
        assertThat(s).as("string input").isNotNull();
        assertThat(b).as("byte input").isNotNull();
        assertThat(b.getMessage()).isEqualTo(s.getMessage());
        return b;
    }

    private static String call(String streamId, String turnId, String callId, String name) {
        return "{\"type\":\"tool_call\",\"stream_id\":\"" + streamId + "\",\"turn_id\":\"" + turnId
                + "\",\"tool_call_id\":\"" + callId + "\",\"name\":\"" + name + "\",\"arguments\":{}}";
    }

    @Test
    void idsAndNamesAboveTheirCapsAreRefusedWithAClearMessage() {
        String ok = "s".repeat(256);
        assertThat(codec.decode(call(ok, ok, ok, "n".repeat(128)))).isInstanceOf(ToolCallsEvent.class);

        EventDecodeException stream = reject(call("s".repeat(512 * 1024), "t", "c", "echo"));
        assertThat(stream.getMessage()).isEqualTo("stream_id is 524288 characters long, above the limit of 256");
        assertThat(stream.streamId()).isNull();
        EventDecodeException turn = reject(call("s", "t".repeat(257), "c", "echo"));
        assertThat(turn.getMessage()).startsWith("turn_id is 257 characters long");
        assertThat(turn.streamId()).isEqualTo("s");
        assertThat(reject(call("s", "t", "c".repeat(300), "echo")).getMessage())
                .startsWith("calls[0].tool_call_id is 300 characters long, above the limit of 256");
        assertThat(reject(call("s", "t", "c", "n".repeat(129))).getMessage())
                .startsWith("calls[0].name is 129 characters long, above the limit of 128");
        assertThat(reject("{\"type\":\"list_tools\",\"stream_id\":\"s\",\"request_id\":\"" + "r".repeat(257) + "\"}")
                .getMessage()).startsWith("request_id is 257 characters long");
        assertThat(reject("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"calls\":[],\"context\":{\"user_id\":\""
                + "u".repeat(2000) + "\"}}").getMessage()).startsWith("context.user_id is 2000 characters long");
    }

    @Test
    void controlEventIdsAboveTheirCapsAreRefused() {
        String ok = "i".repeat(256);
        String big = "i".repeat(257);
        assertThat(codec.decode("{\"type\":\"cancel\",\"stream_id\":\"s\",\"turn_id\":\"" + ok + "\"}")).isNotNull();
        assertThat(reject("{\"type\":\"cancel\",\"stream_id\":\"s\",\"turn_id\":\"" + big + "\"}").getMessage())
                .startsWith("turn_id is 257 characters long");
        assertThat(reject("{\"type\":\"cancel\",\"stream_id\":\"s\",\"reason\":\"" + "r".repeat(1025) + "\"}")
                .getMessage()).startsWith("reason is 1025 characters long");
        assertThat(reject("{\"type\":\"approval_response\",\"stream_id\":\"s\",\"approval_id\":\"" + big
                + "\",\"decision\":\"approve\"}").getMessage()).startsWith("approval_id is 257 characters long");
        EventDecodeException e = reject("{\"type\":\"input_response\",\"stream_id\":\"s\",\"input_id\":\"" + big
                + "\",\"action\":\"cancel\"}");
        assertThat(e.getMessage()).startsWith("input_id is 257 characters long");
        assertThat(e.streamId()).isEqualTo("s");
    }

    @Test
    void aLoneSurrogateIsRefusedAndAPairIsKept() {
        EventDecodeException e = reject("{\"type\":\"tool_call\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"name\":\"echo\","
                + "\"arguments\":{\"text\":\"a\\ud800b\"}}");
        assertThat(e.getMessage()).contains("lone UTF-16 surrogate").contains("at arguments.text");
        assertThat(e.streamId()).isEqualTo("s");
        assertThat(e.turnId()).isEqualTo("t");
        assertThat(reject("{\"type\":\"tool_call\",\"stream_id\":\"s\",\"name\":\"echo\",\"arguments\":{\"\\udc00\":1}}")
                .getMessage()).contains("surrogate");
        ToolCallsEvent ok = (ToolCallsEvent) codec.decode("{\"type\":\"tool_call\",\"stream_id\":\"s\",\"name\":\"echo\","
                + "\"arguments\":{\"text\":\"\\ud83d\\ude00\"}}");
        assertThat(ok.calls().get(0).arguments().get("text").textValue()).isEqualTo("😀");
    }

    @Test
    void aNumberThatCannotBeRepresentedIsABadEventOrInvalidArguments() {
        // found by DecoderFuzzTest: Jackson reads the token, BigDecimal refuses its exponent
        EventDecodeException e = reject("{\"type\":\"tool_call\",\"stream_id\":\"s\",\"name\":\"echo\","
                + "\"arguments\":{\"text\":1e99999999999999}}");
        assertThat(e.getMessage()).startsWith("a number cannot be read");
        assertThat(e.streamId()).isEqualTo("s");
        ToolExecutor ex = ToolExecutor.builder().tool(TestTools.echo()).build();
        ToolResultEvent r = runOne(ex, ToolCall.ofJson("c", "echo", "{\"text\":1e99999999999999}"));
        assertThat(r.error().code()).isEqualTo(ErrorCode.INVALID_ARGUMENTS);
        assertThat(r.content()).contains("a number cannot be read");
    }

    private static ToolResultEvent runOne(ToolExecutor ex, ToolCall call) {
        return results(ex.execute(ToolCallsEvent.of("s", "t", List.of(call))).collectList()
                .block(Duration.ofSeconds(10))).get(0);
    }

    @Test
    void stringFormArgumentsRefuseDuplicateKeysAndLoneSurrogates() {
        ToolExecutor ex = ToolExecutor.builder().tool(TestTools.echo()).build();
        ToolResultEvent dup = runOne(ex, ToolCall.ofJson("c", "echo", "{\"text\":\"a\",\"text\":\"b\"}"));
        assertThat(dup.error().code()).isEqualTo(ErrorCode.INVALID_ARGUMENTS);
        assertThat(dup.content()).contains("duplicate key 'text'");
        ToolResultEvent nested = runOne(ex, ToolCall.ofJson("c", "echo", "{\"text\":\"a\",\"o\":{\"k\":1,\"k\":2}}"));
        assertThat(nested.content()).contains("duplicate key 'k'");
        ToolResultEvent lone = runOne(ex, ToolCall.ofJson("c", "echo", "{\"text\":\"x\\ud800\"}"));
        assertThat(lone.error().code()).isEqualTo(ErrorCode.INVALID_ARGUMENTS);
        assertThat(lone.content()).contains("lone UTF-16 surrogate \\ud800");
        assertThat(runOne(ex, ToolCall.ofJson("c", "echo", "{\"text\":\"\\ud83d\\ude00\"}")).content()).isEqualTo("😀");
    }

    private static ToolCallsEvent turnOf(int calls) {
        List<ToolCall> list = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            list.add(ToolCall.ofJson("c" + i, "echo", "{\"text\":\"x\"}"));
        }
        return ToolCallsEvent.of("s", "t", list);
    }

    @Test
    void aTurnAboveMaxCallsPerTurnIsRefusedWithOneErrorEvent() {
        ToolExecutor ex = ToolExecutor.builder().tool(TestTools.echo()).build();
        assertThat(results(ex.execute(turnOf(128)).collectList().block(Duration.ofSeconds(10)))).hasSize(128);
        List<OutboundEvent> refused = ex.execute(turnOf(129)).collectList().block(Duration.ofSeconds(10));
        assertThat(refused).hasSize(1);
        ErrorEvent e = (ErrorEvent) refused.get(0);
        assertThat(e.code()).isEqualTo(ErrorCode.BAD_EVENT);
        assertThat(e.streamId()).isEqualTo("s");
        assertThat(e.turnId()).isEqualTo("t");
        assertThat(e.message()).isEqualTo("the turn has 129 calls, above the limit of 128 (execution.maxCallsPerTurn):"
                + " no call was run; send fewer calls per turn");
        ToolExecutor small = ToolExecutor.builder().tool(TestTools.echo())
                .settings(ExecutionSettings.builder().maxCallsPerTurn(2).build()).build();
        assertThat(small.execute(turnOf(3)).collectList().block(Duration.ofSeconds(10)))
                .singleElement().isInstanceOf(ErrorEvent.class);
    }

    @Test
    void onABusATooLongTurnIsAnsweredWithTheErrorAndAcknowledged() throws Exception {
        InMemoryBus bus = InMemoryBus.create();
        ToolExecutor ex = ToolExecutor.builder().tool(TestTools.echo())
                .settings(ExecutionSettings.builder().maxCallsPerTurn(2).build()).build();
        var loop = ex.attach(bus);
        try {
            var events = bus.events().take(1).collectList().toFuture();
            bus.send(turnOf(3));
            List<OutboundEvent> out = events.get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(out).singleElement().isInstanceOf(ErrorEvent.class);
        } finally {
            loop.dispose();
        }
    }

    @Test
    void theCallLogCutsLongFields() {
        ToolExecutor ex = ToolExecutor.builder().tool(TestTools.echo()).build();
        String huge = "i".repeat(1024 * 1024);
        ex.execute(ToolCallsEvent.of(huge, huge, List.of(ToolCall.ofJson(huge, "echo", "{\"text\":\"x\"}"))))
                .blockLast(Duration.ofSeconds(10));
        CallRecord r = ex.callLog().recent().get(0);
        assertThat(r.toolCallId()).hasSize(CallRecord.MAX_FIELD_CHARS).endsWith("…");
        assertThat(r.streamId()).hasSize(CallRecord.MAX_FIELD_CHARS);
        assertThat(r.turnId()).hasSize(CallRecord.MAX_FIELD_CHARS);
    }
}
