package dev.toolbus.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EventCodecDecodeTest {

    private final EventCodec codec = EventCodec.create(EventCodec.DEFAULT_MAX_EVENT_BYTES, () -> "gen-1");

    private ToolCallsEvent turn(String json) {
        return (ToolCallsEvent) codec.decode(json);
    }

    @Test
    void decode_nativeCallWithObjectArguments() {
        ToolCallsEvent t = turn("""
                {"type":"tool_calls","stream_id":"qq:group:123","turn_id":"msg-42",
                 "calls":[{"tool_call_id":"call_1","name":"search_web","arguments":{"query":"reactor"}}]}""");
        assertThat(t.streamId()).isEqualTo("qq:group:123");
        assertThat(t.turnId()).isEqualTo("msg-42");
        ToolCall c = t.calls().get(0);
        assertThat(c.toolCallId()).isEqualTo("call_1");
        assertThat(c.name()).isEqualTo("search_web");
        assertThat(c.arguments().get("query").textValue()).isEqualTo("reactor");
        assertThat(c.argumentsJson()).isNull();
    }

    @Test
    void decode_openAiShape_isAcceptedAsIs() {
        ToolCallsEvent t = turn("""
                {"type":"tool_calls","stream_id":"s","turn_id":"t","calls":[{"id":"call_2","type":"function",
                 "function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]}""");
        ToolCall c = t.calls().get(0);
        assertThat(c.toolCallId()).isEqualTo("call_2");
        assertThat(c.name()).isEqualTo("get_weather");
        assertThat(c.arguments()).isNull();
        assertThat(c.argumentsJson()).isEqualTo("{\"city\":\"Paris\"}");
    }

    @Test
    void decode_mixedShapesInOneTurn_keepCallOrder() {
        ToolCallsEvent t = turn("""
                {"type":"tool_calls","stream_id":"s","turn_id":"t","calls":[
                 {"tool_call_id":"a","name":"x","arguments":{}},
                 {"id":"b","type":"function","function":{"name":"y","arguments":"{}"}},
                 {"call_id":"c","name":"z","arguments":"{}"}]}""");
        assertThat(t.calls()).extracting(ToolCall::toolCallId).containsExactly("a", "b", "c");
        assertThat(t.calls()).extracting(ToolCall::name).containsExactly("x", "y", "z");
    }

    @Test
    void decode_missingOrBlankArguments_becomeEmptyObject() {
        ToolCallsEvent t = turn("""
                {"type":"tool_calls","stream_id":"s","turn_id":"t","calls":[
                 {"tool_call_id":"a","name":"x"},{"tool_call_id":"b","name":"x","arguments":null},
                 {"id":"c","function":{"name":"x","arguments":""}}]}""");
        assertThat(t.calls()).allSatisfy(c -> {
            assertThat(c.arguments().isObject()).isTrue();
            assertThat(c.arguments().size()).isZero();
        });
    }

    @Test
    void decode_argumentsNeitherObjectNorString_areKeptForTheExecutor() {
        ToolCallsEvent t = turn("""
                {"type":"tool_calls","stream_id":"s","turn_id":"t","calls":[
                 {"tool_call_id":"a","name":"x","arguments":[1,2]},{"tool_call_id":"b","name":"x","arguments":42},
                 {"tool_call_id":"c","name":"x","arguments":true}]}""");
        assertThat(t.calls()).extracting(c -> c.arguments().getNodeType().name())
                .containsExactly("ARRAY", "NUMBER", "BOOLEAN");
    }

    @Test
    void decode_missingTurnId_isGenerated_andMissingCallIdsDeriveFromIt() {
        ToolCallsEvent t = turn("""
                {"type":"tool_calls","stream_id":"s","calls":[{"name":"x"},{"name":"y"}]}""");
        assertThat(t.turnId()).isEqualTo("gen-1");
        assertThat(t.calls()).extracting(ToolCall::toolCallId).containsExactly("gen-1-call_1", "gen-1-call_2");
    }

    @Test
    void decode_generatedCallId_neverCollidesWithAnExplicitOne() {
        ToolCallsEvent t = turn("""
                {"type":"tool_calls","stream_id":"s","turn_id":"t","calls":[{"name":"x"},{"id":"t-call_1","name":"y"}]}""");
        assertThat(t.calls()).extracting(ToolCall::toolCallId).doesNotHaveDuplicates().contains("t-call_1");
    }

    @Test
    void decode_blankTurnId_isGenerated_numericTurnIdIsText() {
        assertThat(turn("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\" \",\"calls\":[]}").turnId())
                .isEqualTo("gen-1");
        assertThat(turn("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":42,\"calls\":[]}").turnId())
                .isEqualTo("42");
    }

    @Test
    void decode_emptyCalls_isATurnWithoutCalls() {
        assertThat(turn("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"calls\":[]}").calls())
                .isEmpty();
    }

    @Test
    void decode_toolCall_isATurnOfOne_inBothShapes() {
        ToolCallsEvent a = turn("""
                {"type":"tool_call","stream_id":"s","turn_id":"t","tool_call_id":"c1","name":"x",
                 "arguments":{"k":1},"context":{"user_id":"u"}}""");
        assertThat(a.calls()).singleElement().satisfies(c -> {
            assertThat(c.toolCallId()).isEqualTo("c1");
            assertThat(c.arguments().get("k").intValue()).isEqualTo(1);
        });
        assertThat(a.context().userId()).isEqualTo("u");
        ToolCallsEvent b = turn("""
                {"type":"tool_call","stream_id":"s","id":"c2","function":{"name":"y","arguments":"{}"}}""");
        assertThat(b.turnId()).isEqualTo("gen-1");
        assertThat(b.calls()).singleElement().extracting(ToolCall::toolCallId, ToolCall::name)
                .containsExactly("c2", "y");
    }

    @Test
    void decode_context_knownFieldsAndExtras_numbersAsText() {
        ToolCallsEvent t = turn("""
                {"type":"tool_calls","stream_id":"s","turn_id":"t","calls":[],
                 "context":{"user_id":10001,"group_id":"g1","platform":"qq","permission":"member","channel":"qq",
                  "provider":"openai","model":"gpt-5.2","agent_id":"main","chat_id":"c9","tags":["a"]}}""");
        CallContext c = t.context();
        assertThat(c.userId()).isEqualTo("10001");
        assertThat(c.groupId()).isEqualTo("g1");
        assertThat(c.platform()).isEqualTo("qq");
        assertThat(c.permission()).isEqualTo("member");
        assertThat(c.channel()).isEqualTo("qq");
        assertThat(c.provider()).isEqualTo("openai");
        assertThat(c.model()).isEqualTo("gpt-5.2");
        assertThat(c.agentId()).isEqualTo("main");
        assertThat(c.extra()).containsEntry("chat_id", "c9").containsKey("tags");
    }

    @Test
    void decode_message_isPassedUntouched() {
        ToolCallsEvent t = turn("""
                {"type":"tool_calls","stream_id":"s","turn_id":"t","calls":[],"message":{"id":7,"text":"hi","x":[1.5]}}""");
        JsonNode m = t.message();
        assertThat(m.toString()).isEqualTo("{\"id\":7,\"text\":\"hi\",\"x\":[1.5]}");
    }

    @Test
    void decode_unknownTopLevelFields_areIgnored() {
        assertThat(turn("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"calls\":[],\"v\":2,\"extra\":{}}").calls())
                .isEmpty();
    }

    @Test
    void decode_listTools_withDefaults() {
        ListToolsEvent l = (ListToolsEvent) codec.decode("""
                {"type":"list_tools","stream_id":"s","request_id":"r1","context":{"permission":"admin"},"format":"Anthropic"}""");
        assertThat(l.requestId()).isEqualTo("r1");
        assertThat(l.format()).isEqualTo(ListToolsEvent.Format.ANTHROPIC);
        assertThat(l.context().permission()).isEqualTo("admin");
        ListToolsEvent d = (ListToolsEvent) codec.decode("{\"type\":\"list_tools\",\"stream_id\":\"s\"}");
        assertThat(d.format()).isEqualTo(ListToolsEvent.Format.OPENAI);
        assertThat(d.requestId()).isEmpty();
    }

    @Test
    void decode_bytesStreamAndSlice_agreeWithString() throws Exception {
        String json = "{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"calls\":[{\"id\":\"é\",\"name\":\"x\"}]}";
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        InboundEvent fromString = codec.decode(json);
        assertThat(codec.decode(bytes)).isEqualTo(fromString);
        assertThat(codec.decode(new ByteArrayInputStream(bytes))).isEqualTo(fromString);
        byte[] padded = new byte[bytes.length + 4];
        System.arraycopy(bytes, 0, padded, 2, bytes.length);
        assertThat(codec.decode(padded, 2, bytes.length)).isEqualTo(fromString);
    }

    @Test
    void decode_trailingWhitespaceAndUtf8Bom_areFine() {
        String json = "{\"type\":\"list_tools\",\"stream_id\":\"s\"}\r\n  ";
        assertThat(codec.decode(json).streamId()).isEqualTo("s");
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        byte[] bom = new byte[body.length + 3];
        bom[0] = (byte) 0xEF;
        bom[1] = (byte) 0xBB;
        bom[2] = (byte) 0xBF;
        System.arraycopy(body, 0, bom, 3, body.length);
        assertThat(codec.decode(bom).streamId()).isEqualTo("s");
    }

    @Test
    void decode_exactlyAtTheLimit_isAccepted() {
        EventCodec small = EventCodec.create(1024, () -> "t");
        String head = "{\"type\":\"list_tools\",\"stream_id\":\"s\",\"pad\":\"";
        String json = head + "x".repeat(1024 - head.length() - 2) + "\"}";
        assertThat(json.length()).isEqualTo(1024);
        assertThat(small.decode(json).streamId()).isEqualTo("s");
        assertThat(small.decode(json.getBytes(StandardCharsets.UTF_8)).streamId()).isEqualTo("s");
    }

    @Test
    void defaults_generatesDistinctTurnIds() {
        String json = "{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"calls\":[]}";
        String a = ((ToolCallsEvent) EventCodec.defaults().decode(json)).turnId();
        String b = ((ToolCallsEvent) EventCodec.defaults().decode(json)).turnId();
        assertThat(a).startsWith("turn-").isNotEqualTo(b);
    }
}
