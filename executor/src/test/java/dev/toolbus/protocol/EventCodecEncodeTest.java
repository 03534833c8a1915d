package dev.toolbus.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class EventCodecEncodeTest {

    private static final Pattern SNAKE = Pattern.compile("^[a-z][a-z0-9]*(_[a-z0-9]+)*$");

    private final EventCodec codec = EventCodec.defaults();

    static List<OutboundEvent> outbound() {
        return Samples.outbound();
    }

    @ParameterizedTest
    @MethodSource("outbound")
    void encode_outbound_isOneLineOfSnakeCaseJson(OutboundEvent event) {
        String json = codec.encode(event);
        assertThat(json).doesNotContain("\n").doesNotContain("\r");
        JsonNode tree = Samples.json(json);
        assertThat(tree.get("type").textValue()).isEqualTo(event.type());
        assertSnakeCaseKeys(tree, event instanceof ToolResultEvent ? List.of("data", "metadata") : List.of("tools"));
    }

    @ParameterizedTest
    @MethodSource("outbound")
    void encodeThenDecodeOutbound_roundTrips(OutboundEvent event) {
        OutboundEvent back = codec.decodeOutbound(codec.encode(event));
        assertThat(back).isEqualTo(event);
        assertThat(codec.decodeOutbound(codec.encodeToBytes(event))).isEqualTo(event);
    }

    @Test
    void encodeThenDecode_toolCalls_roundTrips() {
        ToolCallsEvent t = Samples.toolCalls();
        assertThat(codec.decode(codec.encode(t))).isEqualTo(t);
    }

    @Test
    void encodeThenDecode_listTools_roundTrips() {
        ListToolsEvent l = Samples.listTools();
        assertThat(codec.decode(codec.encode(l))).isEqualTo(l);
    }

    @Test
    void encode_inbound_leavesEmptyContextFieldsOut() {
        String json = codec.encode(ToolCallsEvent.of("s", "t", List.of()));
        assertThat(json).isEqualTo("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"calls\":[],"
                + "\"context\":{}}");
    }

    @Test
    void encode_toolResult_hasTheDocumentedFieldOrder() {
        JsonNode tree = Samples.json(codec.encode(Samples.toolResultError()));
        List<String> names = new java.util.ArrayList<>();
        tree.fieldNames().forEachRemaining(names::add);
        assertThat(names).containsExactly("type", "stream_id", "turn_id", "tool_call_id", "name", "content",
                "is_error", "error", "metadata", "media", "attempts", "cached", "elapsed_ms");
        assertThat(tree.get("error").toString()).isEqualTo("{\"code\":\"TIMEOUT\",\"message\":\"timed out after 30000 ms\"}");
    }

    record Hit(String pageTitle, int rank, List<String> tags) {
    }

    static final class Bean {
        public String getDisplayName() {
            return "x";
        }
    }

    @Test
    void encode_data_acceptsAnyJacksonSerialisableValue() {
        Map<String, Object> nested = new LinkedHashMap<>();
        nested.put("camelKey", List.of(1, 2.5, new BigDecimal("1e400"), true));
        nested.put("nothing", null);
        ObjectNode node = JsonNodeFactory.instance.objectNode().put("n", 1);
        Object[] values = {"text\nwith break", 42, 3.25, List.of("a", 1), nested, node,
                new Hit("Reactor", 1, List.of("java")), new Bean(), new int[] {1, 2}, Double.NaN, Map.of()};
        String[] expected = {"\"text\\nwith break\"", "42", "3.25", "[\"a\",1]",
                "{\"camelKey\":[1,2.5,1E+400,true],\"nothing\":null}", "{\"n\":1}",
                "{\"page_title\":\"Reactor\",\"rank\":1,\"tags\":[\"java\"]}", "{\"display_name\":\"x\"}", "[1,2]",
                "\"NaN\"", "{}"};
        for (int i = 0; i < values.length; i++) {
            ToolResultEvent r = ToolResultEvent.builder().streamId("s").turnId("t").toolCallId("c").name("x")
                    .content("").data(values[i]).attempts(1).build();
            String json = codec.encode(r);
            assertThat(json).doesNotContain("\n");
            assertThat(Samples.json(json).get("data").toString()).as("data %s", values[i])
                    .isEqualTo(Samples.json(expected[i]).toString());
        }
    }

    @Test
    void encode_rawValueWithLineBreak_isStillOneLine() {
        ObjectNode raw = JsonNodeFactory.instance.objectNode();
        raw.putRawValue("r", new RawValue("{\n\"a\": 1\n}"));
        String json = codec.encode(ToolResultEvent.builder().streamId("s").turnId("t").toolCallId("c").name("x")
                .content("").data(raw).attempts(1).build());
        assertThat(json).doesNotContain("\n").contains("\"data\":{\"r\":{\"a\":1}}");
    }

    @Test
    void encode_unserialisableData_raisesEncodeErrorNamingTheCall() {
        ToolResultEvent r = ToolResultEvent.builder().streamId("s").turnId("t").toolCallId("call_9").name("clock")
                .content("").data(Map.of("at", Instant.EPOCH)).attempts(1).build();
        assertThatThrownBy(() -> codec.encode(r)).isInstanceOf(EventEncodeException.class)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("tool_result").hasMessageContaining("call_9").hasMessageContaining("Instant");
    }

    @Test
    void encode_nonAsciiAndControlCharacters_areEscapedOrKept() {
        ErrorEvent e = new ErrorEvent("s", null, ErrorCode.BAD_EVENT, "bad \u0001 \u2028 日本 😀\ttab");
        String json = codec.encode(e);
        assertThat(json).doesNotContain("\n").doesNotContain("\t").doesNotContain("\u0001");
        assertThat(((ErrorEvent) codec.decodeOutbound(json.getBytes(StandardCharsets.UTF_8))).message())
                .isEqualTo(e.message());
        assertThat(json).doesNotContain("turn_id");
    }

    @Test
    void decodeOutbound_rejectsUnknownOrIncompleteEvents() {
        assertThatThrownBy(() -> codec.decodeOutbound("{\"type\":\"tool_calls\",\"stream_id\":\"s\"}"))
                .isInstanceOf(EventDecodeException.class).hasMessageContaining("unknown outbound event type");
        assertThatThrownBy(() -> codec.decodeOutbound("{\"type\":\"tool_result\",\"stream_id\":\"s\",\"turn_id\":\"t\"}"))
                .isInstanceOf(EventDecodeException.class).hasMessageContaining("tool_result event is missing tool_call_id");
        assertThatThrownBy(() -> codec.decodeOutbound("{\"type\":\"error\",\"code\":\"NOPE\",\"message\":\"m\"}"))
                .isInstanceOf(EventDecodeException.class).hasMessageContaining("invalid error event");
        assertThatThrownBy(() -> codec.decodeOutbound("{\"type\":\"error\",\"code\":\"BAD_EVENT\"} x"))
                .isInstanceOf(EventDecodeException.class).hasMessageContaining("unexpected content");
        assertThatThrownBy(() -> codec.decodeOutbound("[]"))
                .isInstanceOf(EventDecodeException.class).hasMessageContaining("must be a JSON object");
    }

    @Test
    void decodeOutbound_acceptsEventsAboveTheInboundLimit() {
        String big = "A".repeat(2 * EventCodec.DEFAULT_MAX_EVENT_BYTES);
        UserMessageEvent m = UserMessageEvent.builder().streamId("s").turnId("t").messageId("tool_result:c:1")
                .toolCallId("c")
                .content(List.of(ContentPart.text("<tool_result_media />"), ContentPart.imageBase64(big, "image/png")))
                .visibleText("").build();
        assertThat(codec.decodeOutbound(codec.encode(m))).isEqualTo(m);
    }

    private static void assertSnakeCaseKeys(JsonNode node, List<String> freeForm) {
        if (node.isArray()) {
            node.forEach(n -> assertSnakeCaseKeys(n, freeForm));
        } else if (node.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> it = node.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                assertThat(e.getKey()).matches(SNAKE);
                if (!freeForm.contains(e.getKey())) {
                    assertSnakeCaseKeys(e.getValue(), freeForm);
                }
            }
        }
    }
}
