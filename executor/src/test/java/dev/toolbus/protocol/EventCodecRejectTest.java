package dev.toolbus.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

class EventCodecRejectTest {

    private final EventCodec codec = EventCodec.create(4096, () -> "gen");

    static Stream<Arguments> malformed() {
        return Stream.of(
                // input, message fragment, stream_id, turn_id
                Arguments.of("", "empty input", null, null),
                Arguments.of("   ", "empty input", null, null),
                Arguments.of("[1,2]", "must be a JSON object, got an array", null, null),
                Arguments.of("\"tool_calls\"", "got a string", null, null),
                Arguments.of("null", "got null", null, null),
                Arguments.of("{\"type\":\"tool_calls\",\"calls\":[]}", "stream_id is missing", null, null),
                Arguments.of("{\"type\":\"tool_calls\",\"turn_id\":\"t\",\"calls\":[]}", "stream_id is missing", null,
                        "t"),
                Arguments.of("{\"type\":\"tool_calls\",\"stream_id\":\"  \",\"calls\":[]}", "stream_id must not be blank",
                        null, null),
                Arguments.of("{\"type\":\"tool_calls\",\"stream_id\":42,\"calls\":[]}",
                        "stream_id must be a string, got a number", null, null),
                Arguments.of("{\"type\":\"tool_calls\",\"stream_id\":{\"id\":1},\"calls\":[]}",
                        "stream_id must be a string, got an object", null, null),
                Arguments.of("{\"stream_id\":\"s\",\"turn_id\":\"t\",\"calls\":[]}", "type is missing", "s", "t"),
                Arguments.of("{\"type\":7,\"stream_id\":\"s\"}", "type must be a string", "s", null),
                Arguments.of("{\"type\":\"tool_result\",\"stream_id\":\"s\",\"turn_id\":\"t\"}",
                        "unknown event type 'tool_result'", "s", "t"),
                Arguments.of("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t\"}", "calls is missing", "s",
                        "t"),
                Arguments.of("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"calls\":{\"a\":1}}",
                        "calls must be an array, got an object", "s", "t"),
                Arguments.of("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"calls\":[{\"name\":\"x\"},3]}",
                        "calls[1] must be an object, got a number", "s", "t"),
                Arguments.of("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"calls\":["
                        + "{\"tool_call_id\":\"c\",\"name\":\"x\"},{\"id\":\"c\",\"function\":{\"name\":\"y\"}}]}",
                        "duplicate tool_call_id 'c'", "s", "t"),
                Arguments.of("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"calls\":[{\"id\":[1]}]}",
                        "calls[0].id must be a string", "s", "t"),
                Arguments.of("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"calls\":[{\"name\":{}}]}",
                        "calls[0].name must be a string", "s", "t"),
                Arguments.of("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"calls\":[{\"function\":\"f\"}]}",
                        "calls[0].function must be an object", "s", "t"),
                Arguments.of("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"calls\":[],\"context\":[]}",
                        "context must be an object, got an array", "s", "t"),
                Arguments.of("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"calls\":[],"
                        + "\"context\":{\"permission\":{\"level\":\"admin\"}}}",
                        "context.permission must be a string", "s", "t"),
                Arguments.of("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":{},\"calls\":[]}",
                        "turn_id must be a string", "s", null),
                Arguments.of("{\"type\":\"tool_call\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"context\":\"x\"}",
                        "context must be an object", "s", "t"),
                Arguments.of("{\"type\":\"list_tools\",\"stream_id\":\"s\",\"format\":\"gemini\"}",
                        "format must be openai, anthropic or mcp, got 'gemini'", "s", null),
                Arguments.of("{\"type\":\"list_tools\",\"stream_id\":\"s\",\"format\":1}", "format must be a string",
                        "s", null),
                Arguments.of("{\"type\":\"list_tools\",\"stream_id\":\"s\",\"request_id\":[]}",
                        "request_id must be a string", "s", null),
                // syntax
                Arguments.of("{\"stream_id\":\"s\",\"turn_id\":\"t\",\"type\":\"tool_calls\",\"calls\":[]} trailing",
                        "unexpected content after the JSON object", "s", "t"),
                Arguments.of("{\"stream_id\":\"s\",\"type\":\"tool_calls\",\"calls\":[]}{\"stream_id\":\"s\"}",
                        "unexpected content after the JSON object", "s", null),
                Arguments.of("{\"stream_id\":\"s\",\"type\":\"tool_calls\",\"calls\":[]}]",
                        "unexpected content after the JSON object", "s", null),
                Arguments.of("{\"stream_id\":\"s\",\"turn_id\":\"t\",\"type\":\"tool_calls\",\"calls\":[{\"name\":\"x\","
                        + "\"arguments\":{\"v\":NaN}}]}", "NaN and Infinity are not JSON numbers", "s", "t"),
                Arguments.of("{\"stream_id\":\"s\",\"type\":\"tool_calls\",\"calls\":[{\"arguments\":{\"v\":-Infinity}}]}",
                        "NaN and Infinity", "s", null),
                Arguments.of("{\"stream_id\":\"s\",\"type\":\"tool_calls\",\"calls\":[{\"arguments\":{\"v\":Infinity}}]}",
                        "NaN and Infinity", "s", null),
                Arguments.of("{\"stream_id\":\"s\",\"stream_id\":\"other\",\"type\":\"tool_calls\",\"calls\":[]}",
                        "duplicate key 'stream_id'", "s", null),
                Arguments.of("{\"stream_id\":\"s\",\"turn_id\":\"t\",\"type\":\"tool_calls\",\"calls\":[",
                        "truncated JSON", "s", "t"),
                Arguments.of("{\"stream_id\":\"s\",\"type\":tool_calls}", "malformed JSON at line 1", "s", null),
                Arguments.of("{'stream_id':'s'}", "malformed JSON", null, null),
                Arguments.of("{\"calls\":[{\"a\":1}],\"stream_id\":\"late\",", "truncated JSON", "late", null));
    }

    @ParameterizedTest(name = "[{index}] {1}")
    @MethodSource("malformed")
    void decode_malformed_raisesActionableError(String input, String fragment, String streamId, String turnId) {
        EventDecodeException e = catchThrowableOfType(EventDecodeException.class, () -> codec.decode(input));
        assertThat(e).as("input %s", input).isNotNull();
        assertThat(e.getMessage()).contains(fragment);
        assertThat(e.streamId()).isEqualTo(streamId);
        assertThat(e.turnId()).isEqualTo(turnId);
        EventDecodeException fromBytes = catchThrowableOfType(EventDecodeException.class,
                () -> codec.decode(input.getBytes(StandardCharsets.UTF_8)));
        assertThat(fromBytes.getMessage()).contains(fragment);
        assertThat(fromBytes.streamId()).isEqualTo(streamId);
    }

    @Test
    void decode_jacksonHintsAreNotLeakedToUsers() {
        EventDecodeException e = catchThrowableOfType(EventDecodeException.class,
                () -> codec.decode("{\"stream_id\":\"s\",\"x\":NaN}"));
        assertThat(e.getMessage()).doesNotContain("JsonReadFeature").doesNotContain("REDACTED");
    }

    @Test
    void decode_deeplyNested_isRejectedWithoutStackOverflow() {
        int depth = Json.MAX_NESTING_DEPTH + 50;
        String args = "[".repeat(depth) + "]".repeat(depth);
        String json = "{\"stream_id\":\"s\",\"turn_id\":\"t\",\"type\":\"tool_calls\",\"calls\":[{\"name\":\"x\",\"arguments\":"
                + args + "}]}";
        EventDecodeException e = catchThrowableOfType(EventDecodeException.class, () -> codec.decode(json));
        assertThat(e.getMessage()).contains("nested more than " + Json.MAX_NESTING_DEPTH + " levels");
        assertThat(e.streamId()).isEqualTo("s");
        assertThat(e.turnId()).isEqualTo("t");
    }

    @Test
    void decode_invalidUtf8_isRejectedWithOffset_andKeepsReadableIds() {
        byte[] head = "{\"stream_id\":\"s\",\"turn_id\":\"t\",\"type\":\"tool_calls\",\"calls\":[{\"name\":\""
                .getBytes(StandardCharsets.UTF_8);
        byte[] tail = "\"}]}".getBytes(StandardCharsets.UTF_8);
        for (byte[] bad : new byte[][] {{(byte) 0xC3}, {(byte) 0xFF}, {(byte) 0xC0, (byte) 0xAF},
                {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
                {0}}) {
            byte[] input = new byte[head.length + bad.length + tail.length];
            System.arraycopy(head, 0, input, 0, head.length);
            System.arraycopy(bad, 0, input, head.length, bad.length);
            System.arraycopy(tail, 0, input, head.length + bad.length, tail.length);
            EventDecodeException e = catchThrowableOfType(EventDecodeException.class, () -> codec.decode(input));
            assertThat(e.getMessage()).contains("not valid UTF-8").contains("offset " + head.length);
            assertThat(e.streamId()).isEqualTo("s");
            assertThat(e.turnId()).isEqualTo("t");
        }
    }

    @Test
    void decode_utf16_isRejected() {
        byte[] utf16 = "{\"stream_id\":\"s\",\"type\":\"list_tools\"}".getBytes(StandardCharsets.UTF_16BE);
        assertThatThrownBy(() -> codec.decode(utf16)).isInstanceOf(EventDecodeException.class)
                .hasMessageContaining("UTF-8");
    }

    @Test
    void decode_oversized_isRejectedFromItsPrefix() {
        String pad = "x".repeat(5000);
        String json = "{\"stream_id\":\"s\",\"turn_id\":\"t\",\"type\":\"tool_calls\",\"calls\":[{\"name\":\"" + pad + "\"}]}";
        EventDecodeException s = catchThrowableOfType(EventDecodeException.class, () -> codec.decode(json));
        assertThat(s.getMessage()).contains("above the 4096-byte limit");
        assertThat(s.streamId()).isEqualTo("s");
        assertThat(s.turnId()).isEqualTo("t");
        EventDecodeException b = catchThrowableOfType(EventDecodeException.class,
                () -> codec.decode(json.getBytes(StandardCharsets.UTF_8)));
        assertThat(b.getMessage()).contains(json.getBytes(StandardCharsets.UTF_8).length + " bytes");
        assertThat(b.streamId()).isEqualTo("s");
    }

    @Test
    void decode_oversizedByMultibyteChars_countsUtf8Bytes() {
        String json = "{\"stream_id\":\"s\",\"type\":\"list_tools\",\"pad\":\"" + "é".repeat(2100) + "\"}";
        assertThat(json.length()).isLessThan(4096);
        assertThatThrownBy(() -> codec.decode(json)).isInstanceOf(EventDecodeException.class)
                .hasMessageContaining("above the 4096-byte limit");
    }

    @Test
    void decode_oversizedStream_stopsReadingAtTheLimit() {
        AtomicInteger served = new AtomicInteger();
        byte[] head = "{\"stream_id\":\"s\",\"type\":\"tool_calls\",\"calls\":[\"".getBytes(StandardCharsets.UTF_8);
        InputStream endless = new InputStream() {
            @Override
            public int read() {
                int i = served.getAndIncrement();
                return i < head.length ? head[i] : 'x';
            }
        };
        EventDecodeException e = catchThrowableOfType(EventDecodeException.class, () -> codec.decode(endless));
        assertThat(e.getMessage()).contains("more than 4096 bytes");
        assertThat(e.streamId()).isEqualTo("s");
        assertThat(served.get()).isLessThanOrEqualTo(4097);
    }

    @Test
    void decode_brokenInput_findsItsIdsAsEveryBusDoes_throughEventIdPeek() {
        EventCodec large = EventCodec.create(1024 * 1024, () -> "gen");
        // a stream id behind 20 KiB of another field (the codec's own scanner read 16 KiB), in truncated JSON
        String json = "{\"pad\":\"" + "x".repeat(20_000) + "\",\"stream_id\":\"s\",\"turn_id\":7,\"calls\":[";
        EventDecodeException e = catchThrowableOfType(EventDecodeException.class, () -> large.decode(json));
        EventIdPeek peek = EventIdPeek.of(json);
        assertThat(e.getMessage()).contains("truncated JSON");
        assertThat(e.streamId()).isEqualTo("s").isEqualTo(peek.streamId());
        assertThat(e.turnId()).isEqualTo("7").isEqualTo(peek.turnId());
        EventDecodeException b = catchThrowableOfType(EventDecodeException.class,
                () -> large.decode(json.getBytes(StandardCharsets.UTF_8)));
        assertThat(b.streamId()).isEqualTo("s");
        // beyond the peek's bound nothing is found
        String far = "{\"pad\":\"" + "x".repeat(EventIdPeek.SCAN_LIMIT) + "\",\"stream_id\":\"s\",";
        assertThat(catchThrowableOfType(EventDecodeException.class, () -> large.decode(far)).streamId()).isNull();
        // a stream id that is not a string does not hide a later one
        EventDecodeException n = catchThrowableOfType(EventDecodeException.class,
                () -> large.decode("{\"stream_id\":5,\"stream_id\":\"s2\",\"calls\":["));
        assertThat(n.streamId()).isEqualTo("s2");
    }

    @Test
    void decode_oversizedWithoutReadableId_hasNoStream() throws Exception {
        String json = "{\"calls\":[\"" + "x".repeat(5000) + "\"],\"stream_id\":\"s\"}";
        EventDecodeException e = catchThrowableOfType(EventDecodeException.class,
                () -> codec.decode(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8))));
        assertThat(e.streamId()).isNull();
        assertThat(e.toErrorEvent().streamId()).isNull();
    }

    @Test
    void toErrorEvent_isBadEventWithIdsAndMessage() {
        EventDecodeException e = catchThrowableOfType(EventDecodeException.class,
                () -> codec.decode("{\"type\":\"nope\",\"stream_id\":\"s\",\"turn_id\":\"t\"}"));
        ErrorEvent err = e.toErrorEvent();
        assertThat(err.code()).isEqualTo(ErrorCode.BAD_EVENT);
        assertThat(err.streamId()).isEqualTo("s");
        assertThat(err.turnId()).isEqualTo("t");
        assertThat(err.message()).isEqualTo(e.getMessage());
    }

    @Test
    void create_rejectsTinyLimit() {
        assertThatThrownBy(() -> EventCodec.create(10, () -> "t")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1024");
    }
}
