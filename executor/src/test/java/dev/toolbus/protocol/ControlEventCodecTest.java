package dev.toolbus.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ControlEventCodecTest {

    private final EventCodec codec = EventCodec.defaults();

    @Test
    void cancelDecodesAtEveryScopeAndRoundTrips() {
        CancelEvent call = (CancelEvent) codec.decode(
                "{\"type\":\"cancel\",\"stream_id\":\"s\",\"turn_id\":\"t1\",\"tool_call_id\":\"c2\",\"reason\":\"user said stop\"}");
        assertThat(call).isEqualTo(CancelEvent.builder().streamId("s").turnId("t1").toolCallId("c2")
                .reason("user said stop").build());
        CancelEvent turn = (CancelEvent) codec.decode("{\"type\":\"cancel\",\"stream_id\":\"s\",\"turn_id\":7}");
        assertThat(turn).isEqualTo(CancelEvent.ofTurn("s", "7"));
        CancelEvent stream = (CancelEvent) codec.decode("{\"type\":\"cancel\",\"stream_id\":\"s\"}");
        assertThat(stream).isEqualTo(CancelEvent.ofStream("s"));
        for (CancelEvent e : List.of(call, turn, stream)) {
            assertThat(codec.decode(codec.encode(e))).isEqualTo(e);
        }
        assertThat(codec.encode(stream)).isEqualTo("{\"type\":\"cancel\",\"stream_id\":\"s\"}");
        assertThat(codec.encode(call)).isEqualTo(
                "{\"type\":\"cancel\",\"stream_id\":\"s\",\"turn_id\":\"t1\",\"tool_call_id\":\"c2\",\"reason\":\"user said stop\"}");
    }

    @Test
    void approvalAndInputResponsesDecodeAndRoundTrip() {
        for (ApprovalDecision d : ApprovalDecision.values()) {
            ApprovalResponseEvent e = (ApprovalResponseEvent) codec.decode("{\"type\":\"approval_response\","
                    + "\"stream_id\":\"s\",\"approval_id\":\"ap-x-1\",\"decision\":\"" + d.wireName() + "\"}");
            assertThat(e).isEqualTo(new ApprovalResponseEvent("s", "ap-x-1", d));
            assertThat(codec.decode(codec.encode(e))).isEqualTo(e);
        }
        assertThat(ApprovalDecision.APPROVE_SESSION.wireName()).isEqualTo("approve_session");
        InputResponseEvent accept = (InputResponseEvent) codec.decode("{\"type\":\"input_response\",\"stream_id\":\"s\","
                + "\"input_id\":\"in-x-1\",\"action\":\"accept\",\"content\":{\"city\":\"Paris\"}}");
        assertThat(accept.action()).isEqualTo(InputAction.ACCEPT);
        assertThat(accept.content().get("city").asText()).isEqualTo("Paris");
        assertThat(codec.decode(codec.encode(accept))).isEqualTo(accept);
        InputResponseEvent decline = (InputResponseEvent) codec.decode(
                "{\"type\":\"input_response\",\"stream_id\":\"s\",\"input_id\":\"in-x-2\",\"action\":\"decline\"}");
        assertThat(decline).isEqualTo(new InputResponseEvent("s", "in-x-2", InputAction.DECLINE, null));
        assertThat(codec.decode(codec.encode(decline))).isEqualTo(decline);
    }

    static Stream<Arguments> bad() {
        return Stream.of(
                Arguments.of("{\"type\":\"cancel\"}", "stream_id is missing", null),
                Arguments.of("{\"type\":\"cancel\",\"stream_id\":\"s\",\"turn_id\":[1]}", "cancel.turn_id must be a string, got an array", "s"),
                Arguments.of("{\"type\":\"cancel\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"tool_call_id\":{}}",
                        "cancel.tool_call_id must be a string, got an object", "s"),
                Arguments.of("{\"type\":\"cancel\",\"stream_id\":\"s\",\"tool_call_id\":\"c\"}", "without turn_id", "s"),
                Arguments.of("{\"type\":\"cancel\",\"stream_id\":\"s\",\"reason\":5}", "cancel.reason must be a string", "s"),
                Arguments.of("{\"type\":\"approval_response\",\"stream_id\":\"s\",\"decision\":\"approve\"}",
                        "approval_id is missing", "s"),
                Arguments.of("{\"type\":\"approval_response\",\"stream_id\":\"s\",\"approval_id\":3,\"decision\":\"approve\"}",
                        "approval_response.approval_id must be a string, got a number", "s"),
                Arguments.of("{\"type\":\"approval_response\",\"stream_id\":\"s\",\"approval_id\":\" \",\"decision\":\"approve\"}",
                        "approval_id must not be blank", "s"),
                Arguments.of("{\"type\":\"approval_response\",\"stream_id\":\"s\",\"approval_id\":\"ap-1\"}",
                        "decision is missing", "s"),
                Arguments.of("{\"type\":\"approval_response\",\"stream_id\":\"s\",\"approval_id\":\"ap-1\",\"decision\":\"yes\"}",
                        "decision must be approve, deny or approve_session, got 'yes'", "s"),
                Arguments.of("{\"type\":\"approval_response\",\"stream_id\":\"s\",\"approval_id\":\"ap-1\",\"decision\":true}",
                        "decision must be a string", "s"),
                Arguments.of("{\"type\":\"input_response\",\"stream_id\":\"s\",\"action\":\"accept\"}", "input_id is missing", "s"),
                Arguments.of("{\"type\":\"input_response\",\"stream_id\":\"s\",\"input_id\":\"in-1\"}", "action is missing", "s"),
                Arguments.of("{\"type\":\"input_response\",\"stream_id\":\"s\",\"input_id\":\"in-1\",\"action\":\"ACCEPTED\"}",
                        "action must be accept, decline or cancel, got 'ACCEPTED'", "s"),
                Arguments.of("{\"type\":\"input_response\",\"stream_id\":\"s\",\"input_id\":\"in-1\",\"action\":\"accept\",\"content\":\"Paris\"}",
                        "input_response.content must be an object, got a string", "s"),
                Arguments.of("{\"type\":\"stop\",\"stream_id\":\"s\"}",
                        "unknown event type 'stop' (expected tool_calls, tool_call, list_tools, list_skills, cancel, approval_response or input_response)", "s"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("bad")
    void badControlEventsAreRejectedWithAClearMessage(String json, String fragment, String streamId) {
        EventDecodeException e = catchThrowableOfType(() -> codec.decode(json), EventDecodeException.class);
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).contains(fragment);
        assertThat(e.streamId()).isEqualTo(streamId);
        assertThat(e.toErrorEvent().code()).isEqualTo(ErrorCode.BAD_EVENT);
    }

    @Test
    void liveOutboundEventsEncodeInWireShapeAndDecodeBack() {
        JsonNode schema = Json.mapper().createObjectNode().put("type", "object");
        List<OutboundEvent> events = List.of(
                ApprovalRequestEvent.builder().streamId("s").turnId("t1").approvalId("ap-a1-1")
                        .expiresAtMs(1767225600000L)
                        .calls(List.of(new ApprovalRequestEvent.Call("c2", "delete_file", Risk.HIGH,
                                "{\"path\":\"a.txt\"}")))
                        .text("The model requested these tools").build(),
                ToolProgressEvent.builder().streamId("s").turnId("t1").toolCallId("c1").name("render").progress(3)
                        .total(10.0).message("frame 3").build(),
                ToolProgressEvent.builder().streamId("s").turnId("t1").toolCallId("c1").name("render").progress(0.5)
                        .build(),
                SendMessageEvent.builder().streamId("s").turnId("t1").toolCallId("c1").messageId("c1:msg:1")
                        .content(List.of(ContentPart.text("你好！"))).build(),
                InputRequestEvent.builder().streamId("s").turnId("t1").toolCallId("c1").inputId("in-a1-1")
                        .expiresAtMs(1767225660000L).message("Which city?").schema(schema).build(),
                new ErrorEvent("s", null, ErrorCode.UNKNOWN_REQUEST, "no question"));
        for (OutboundEvent e : events) {
            String json = codec.encode(e);
            assertThat(codec.decodeOutbound(json)).as(json).isEqualTo(e);
        }
        assertThat(codec.encode(events.get(0))).isEqualTo("{\"type\":\"approval_request\",\"stream_id\":\"s\","
                + "\"turn_id\":\"t1\",\"approval_id\":\"ap-a1-1\",\"expires_at_ms\":1767225600000,\"calls\":[{"
                + "\"tool_call_id\":\"c2\",\"name\":\"delete_file\",\"risk\":\"high\",\"arguments_summary\":"
                + "\"{\\\"path\\\":\\\"a.txt\\\"}\"}],\"text\":\"The model requested these tools\"}");
        assertThat(codec.encode(events.get(1))).isEqualTo("{\"type\":\"tool_progress\",\"stream_id\":\"s\","
                + "\"turn_id\":\"t1\",\"tool_call_id\":\"c1\",\"name\":\"render\",\"progress\":3,\"total\":10,"
                + "\"message\":\"frame 3\"}");
        assertThat(codec.encode(events.get(2))).contains("\"progress\":0.5").doesNotContain("total");
        assertThat(codec.encode(events.get(3))).isEqualTo("{\"type\":\"send_message\",\"stream_id\":\"s\","
                + "\"turn_id\":\"t1\",\"tool_call_id\":\"c1\",\"message_id\":\"c1:msg:1\",\"content\":[{\"type\":"
                + "\"text\",\"text\":\"你好！\"}]}");
        assertThat(codec.encode(events.get(4))).isEqualTo("{\"type\":\"input_request\",\"stream_id\":\"s\","
                + "\"turn_id\":\"t1\",\"tool_call_id\":\"c1\",\"input_id\":\"in-a1-1\",\"expires_at_ms\":1767225660000,"
                + "\"message\":\"Which city?\",\"schema\":{\"type\":\"object\"}}");
    }

    @Test
    void liveOutboundEventsMissingRequiredFieldsAreRejected() {
        EventDecodeException e = catchThrowableOfType(() -> codec.decodeOutbound(
                "{\"type\":\"send_message\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"tool_call_id\":\"c\",\"content\":[]}"),
                EventDecodeException.class);
        assertThat(e.getMessage()).contains("send_message event is missing message_id");
        e = catchThrowableOfType(() -> codec.decodeOutbound(
                "{\"type\":\"approval_request\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"approval_id\":\"a\","
                        + "\"expires_at_ms\":1,\"calls\":[{\"tool_call_id\":\"c\",\"risk\":\"extreme\"}]}"),
                EventDecodeException.class);
        assertThat(e.getMessage()).contains("invalid approval_request event");
        e = catchThrowableOfType(() -> codec.decodeOutbound("{\"type\":\"tool_progress\",\"stream_id\":\"s\","
                + "\"turn_id\":\"t\",\"tool_call_id\":\"c\"}"), EventDecodeException.class);
        assertThat(e.getMessage()).contains("tool_progress event is missing progress");
    }

    @Test
    void controlIdsNameTheirInstance() {
        assertThat(ControlIds.of(ControlIds.APPROVAL, "3fa9c2d1", 12)).isEqualTo("ap-3fa9c2d1-12");
        assertThat(ControlIds.instanceOf("ap-3fa9c2d1-12")).isEqualTo("3fa9c2d1");
        assertThat(ControlIds.instanceOf("in-node.a_1-7")).isEqualTo("node.a_1");
        assertThat(ControlIds.instanceOf("in--7")).isNull();
        assertThat(ControlIds.instanceOf("in-abc-")).isNull();
        assertThat(ControlIds.instanceOf("in-abc-x1")).isNull();
        assertThat(ControlIds.instanceOf("xx-abc-1")).isNull();
        assertThat(ControlIds.instanceOf(null)).isNull();
    }

    @Test
    void riskHasLowerCaseWireNames() {
        assertThat(Risk.HIGH.wireName()).isEqualTo("high");
        assertThat(Risk.parse(" Medium ")).isEqualTo(Risk.MEDIUM);
        assertThat(catchThrowableOfType(() -> Risk.parse("extreme"), IllegalArgumentException.class))
                .hasMessageContaining("low, medium or high");
    }
}
