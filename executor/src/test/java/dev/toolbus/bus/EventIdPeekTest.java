package dev.toolbus.bus;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EventIdPeekTest {

    private static EventIdPeek peek(String json) {
        return EventIdPeek.of(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void findsTopLevelIdsInATruncatedEvent_andSkipsNestedOnes() {
        EventIdPeek ids = peek("{\"type\":\"tool_calls\",\"context\":{\"stream_id\":\"nested\"},"
                + "\"stream_id\":\"qq:group:1\",\"turn_id\":\"t9\",\"calls\":[{\"name\":\"echo\",\"argum");

        assertThat(ids.type()).isEqualTo("tool_calls");
        assertThat(ids.streamId()).isEqualTo("qq:group:1");
        assertThat(ids.turnId()).isEqualTo("t9");
        assertThat(ids.isTurn()).isTrue();
        byte[] inner = "{\"calls\":[{\"stream_id\":\"inner\"}],\"stream_id\":\"s1\",\"turn_id\":\"t1\"}".getBytes();
        assertThat(EventIdPeek.of(inner).streamId()).isEqualTo("s1");
    }

    @Test
    void idsCutOffMissingOrBlank_areNull() {
        assertThat(peek("{\"type\":\"tool_calls\",\"calls\":[1,2").streamId()).isNull();
        assertThat(peek("{\"stream_id\":\"abc")).isEqualTo(EventIdPeek.NONE);
        assertThat(peek("not json")).isEqualTo(EventIdPeek.NONE);
        assertThat(peek("{\"stream_id\":\"  \"")).isEqualTo(EventIdPeek.NONE);
        assertThat(peek("[1,2]")).isEqualTo(EventIdPeek.NONE);
        assertThat(EventIdPeek.of((byte[]) null)).isEqualTo(EventIdPeek.NONE);
        assertThat(EventIdPeek.of(new byte[0])).isEqualTo(EventIdPeek.NONE);
        assertThat(peek("{\"stream_id\":\"s\",\"x\":\"unterminated").streamId()).isEqualTo("s");
    }

    @Test
    void streamIdMustBeAString_turnIdMayBeAnInteger_andTheFirstOccurrenceWins() {
        EventIdPeek ids = peek("{\"type\":\"tool_call\",\"stream_id\":7,\"turn_id\":42,\"stream_id\":\"late\"}");
        assertThat(ids.turnId()).isEqualTo("42");
        assertThat(ids.streamId()).isEqualTo("late"); // the number did not count as a stream id
        assertThat(peek("{\"turn_id\":\"first\",\"turn_id\":\"second\"}").turnId()).isEqualTo("first");
        assertThat(peek("{\"type\":{\"x\":1},\"stream_id\":\"s\"}").type()).isNull();
    }

    @Test
    void answers_carryTheirRequestId_andAreControlEvents() {
        EventIdPeek approval = peek("{\"type\":\"approval_response\",\"stream_id\":\"s\",\"approval_id\":\"ap-i1-3\","
                + "\"decision\":\"approve\"}");
        assertThat(approval.requestId()).isEqualTo("ap-i1-3");
        assertThat(approval.isAnswer()).isTrue();
        assertThat(approval.isControl()).isTrue();
        assertThat(approval.isTurn()).isFalse();
        EventIdPeek input = peek("{\"input_id\":\"in-i2-1\",\"stream_id\":\"s\",\"type\":\"input_response\"}");
        assertThat(input.requestId()).isEqualTo("in-i2-1");
        EventIdPeek cancel = peek("{\"type\":\"cancel\",\"stream_id\":\"s\",\"turn_id\":\"t1\"}");
        assertThat(cancel.isCancel()).isTrue();
        assertThat(cancel.isControl()).isTrue();
        assertThat(cancel.isAnswer()).isFalse();
        assertThat(peek("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t\"}").isControl()).isFalse();
    }

    @Test
    void aTurnIsIdentifiedOnlyWithBothIds() {
        assertThat(peek("{\"type\":\"tool_calls\",\"stream_id\":\"s\"}").isTurn()).isFalse();
        assertThat(peek("{\"type\":\"tool_call\",\"turn_id\":\"t\"}").isTurn()).isFalse();
        assertThat(peek("{\"type\":\"list_tools\",\"stream_id\":\"s\",\"turn_id\":\"t\"}").isTurn()).isFalse();
    }

    @Test
    void scansAtMostItsLimit_fromBytesAStringOrASlice() {
        String pad = "x".repeat(EventIdPeek.SCAN_LIMIT);
        String late = "{\"pad\":\"" + pad + "\",\"stream_id\":\"late\"}";
        assertThat(peek(late)).isEqualTo(EventIdPeek.NONE);
        assertThat(EventIdPeek.of(late)).isEqualTo(EventIdPeek.NONE);
        String early = "{\"type\":\"cancel\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"pad\":\"" + pad + "\"}";
        assertThat(EventIdPeek.of(early)).isEqualTo(peek(early));
        assertThat(EventIdPeek.of(early).turnId()).isEqualTo("t");
        byte[] framed = ("xx" + early).getBytes(StandardCharsets.UTF_8);
        assertThat(EventIdPeek.of(framed, 2, framed.length - 2)).isEqualTo(peek(early));
        assertThat(EventIdPeek.of((String) null)).isEqualTo(EventIdPeek.NONE);
    }
}
