package dev.toolbus.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A call's {@code caller}: toolbus's shape and the providers' own, read into one {@link Caller}. */
class CallerCodecTest {

    private final EventCodec codec = EventCodec.create(EventCodec.DEFAULT_MAX_EVENT_BYTES, () -> "gen-1");

    private Caller callerOf(String callJson) {
        ToolCallsEvent t = (ToolCallsEvent) codec.decode(
                "{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"calls\":[" + callJson + "]}");
        return t.calls().get(0).caller();
    }

    @Test
    void noCaller_isDirect() {
        assertThat(callerOf("{\"tool_call_id\":\"c\",\"name\":\"x\"}")).isSameAs(Caller.DIRECT);
        assertThat(callerOf("{\"tool_call_id\":\"c\",\"name\":\"x\",\"caller\":null}")).isSameAs(Caller.DIRECT);
        assertThat(callerOf("{\"tool_call_id\":\"c\",\"name\":\"x\",\"caller\":{\"type\":\"direct\"}}"))
                .isSameAs(Caller.DIRECT);
    }

    @Test
    void toolbusShape() {
        Caller c = callerOf("{\"tool_call_id\":\"c\",\"name\":\"x\",\"caller\":{\"type\":\"programmatic\",\"id\":\"run_1\"}}");
        assertThat(c.type()).isEqualTo(CallerType.PROGRAMMATIC);
        assertThat(c.id()).isEqualTo("run_1");
    }

    @Test
    void anthropicToolUseCaller_isProgrammatic_withTheCodeExecutionToolId() {
        // a tool_use block's caller under Anthropic's programmatic tool calling, passed through unchanged
        Caller c = callerOf("{\"id\":\"toolu_01\",\"name\":\"x\",\"arguments\":{},"
                + "\"caller\":{\"type\":\"code_execution_20250825\",\"tool_id\":\"srvtoolu_abc\"}}");
        assertThat(c).isEqualTo(Caller.programmatic("srvtoolu_abc"));
        Caller v2 = callerOf("{\"id\":\"toolu_02\",\"name\":\"x\","
                + "\"caller\":{\"type\":\"code_execution_20260120\",\"tool_id\":\"srvtoolu_def\"}}");
        assertThat(v2).isEqualTo(Caller.programmatic("srvtoolu_def"));
    }

    @Test
    void openAiFunctionCallCaller_isProgrammatic_withTheProgramsCallId() {
        // a Responses function_call item made by a program: caller {"type":"program","caller_id":...}
        Caller c = callerOf("{\"call_id\":\"call_9\",\"type\":\"function\",\"function\":{\"name\":\"x\",\"arguments\":\"{}\"},"
                + "\"caller\":{\"type\":\"program\",\"caller_id\":\"prog_7\"}}");
        assertThat(c).isEqualTo(Caller.programmatic("prog_7"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "\"code\"                                   | calls[0].caller must be an object, got string",
        "{}                                         | calls[0].caller.type must be a string",
        "{\"type\":7}                              | calls[0].caller.type must be a string",
        "{\"type\":\"robot\"}                     | calls[0].caller.type 'robot' is not direct, programmatic",
        "{\"type\":\"programmatic\",\"id\":5}    | calls[0].caller.id must be a string",
        "{\"type\":\"program\",\"caller_id\":[]} | calls[0].caller.caller_id must be a string",
    })
    void aBadCaller_isABadEvent_namingTheField(String caller, String fragment) {
        EventDecodeException e = catchThrowableOfType(EventDecodeException.class, () -> codec.decode(
                "{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"calls\":[{\"tool_call_id\":\"c\","
                        + "\"name\":\"x\",\"caller\":" + caller + "}]}"));
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).contains(fragment);
        assertThat(e.streamId()).isEqualTo("s");
    }

    @Test
    void aTooLongId_isABadEvent() {
        String id = "x".repeat(Caller.MAX_ID_CHARS + 1);
        EventDecodeException e = catchThrowableOfType(EventDecodeException.class, () -> codec.decode(
                "{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"calls\":[{\"tool_call_id\":\"c\","
                        + "\"name\":\"x\",\"caller\":{\"type\":\"programmatic\",\"id\":\"" + id + "\"}}]}"));
        assertThat(e.getMessage()).contains("calls[0].caller.id is longer than 256 characters");
    }

    @Test
    void encode_writesAProgrammaticCallerInToolbusShape_andLeavesDirectOut() {
        ToolCallsEvent t = ToolCallsEvent.of("s", "t", java.util.List.of(
                ToolCall.ofJson("a", "x", "{}").withCaller(Caller.programmatic("srvtoolu_1")),
                ToolCall.ofJson("b", "x", "{}")));
        String json = codec.encode(t);
        assertThat(json).contains("\"caller\":{\"type\":\"programmatic\",\"id\":\"srvtoolu_1\"}");
        assertThat(json.indexOf("\"caller\"")).isEqualTo(json.lastIndexOf("\"caller\""));
        ToolCallsEvent back = (ToolCallsEvent) codec.decode(json);
        assertThat(back.calls()).extracting(ToolCall::caller)
                .containsExactly(Caller.programmatic("srvtoolu_1"), Caller.DIRECT);
    }
}
