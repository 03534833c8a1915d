package dev.toolbus.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The {@code traceparent}/{@code tracestate} fields: read leniently, written on every outbound event. */
class TraceFieldsTest {

    static final String TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private final EventCodec codec = EventCodec.defaults();

    @Test
    void turnsAndListToolsCarryTheirTraceContext() {
        var turn = (ToolCallsEvent) codec.decode("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"calls\":[],"
                + "\"traceparent\":\"" + TP + "\",\"tracestate\":\"a=1,b=2\"}");
        assertThat(turn.trace()).isEqualTo(new TraceContext(TP, "a=1,b=2"));
        assertThat(turn.trace().traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(turn.trace().spanId()).isEqualTo("00f067aa0ba902b7");
        assertThat(turn.trace().sampled()).isTrue();
        var single = (ToolCallsEvent) codec.decode("{\"type\":\"tool_call\",\"stream_id\":\"s\",\"name\":\"x\","
                + "\"traceparent\":\"" + TP + "\"}");
        assertThat(single.trace()).isEqualTo(new TraceContext(TP, null));
        var list = (ListToolsEvent) codec.decode("{\"type\":\"list_tools\",\"stream_id\":\"s\",\"traceparent\":\""
                + TP + "\"}");
        assertThat(list.trace().traceparent()).isEqualTo(TP);

        JsonNode again = Samples.json(codec.encode(turn));
        assertThat(again.get("traceparent").textValue()).isEqualTo(TP);
        assertThat(again.get("tracestate").textValue()).isEqualTo("a=1,b=2");
        assertThat(codec.decode(again.toString())).isEqualTo(turn);
        assertThat(((ListToolsEvent) codec.decode(codec.encode(list))).trace()).isEqualTo(list.trace());
        assertThat(codec.encode(ToolCallsEvent.of("s", "t", List.of()))).doesNotContain("trace");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "\"\"", "7", "{}", "null", "\"garbage\"",
        "\"00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01\"", // upper case
        "\"00-00000000000000000000000000000000-00f067aa0ba902b7-01\"", // zero trace id
        "\"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01\"", // zero span id
        "\"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\"", // forbidden version
        "\"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra\"", // version 00 has no more fields
        "\"00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01\"", // short trace id
        "\"00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01\""})
    void anInvalidTraceparentIsIgnoredNeverAnError(String value) {
        var turn = (ToolCallsEvent) codec.decode("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"calls\":[],"
                + "\"traceparent\":" + value + ",\"tracestate\":\"a=1\"}");
        assertThat(turn.trace()).isNull();
    }

    @Test
    void laterVersionsAreReadAndLengthsAreBounded() {
        String v1 = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-more";
        assertThat(TraceContext.parse(v1, null)).isNotNull();
        assertThat(TraceContext.parse(v1, null).sampled()).isFalse();
        assertThat(TraceContext.parse(v1 + "x".repeat(TraceContext.MAX_TRACEPARENT_CHARS), null)).isNull();
        String longState = "a=" + "b".repeat(TraceContext.MAX_TRACESTATE_CHARS);
        assertThat(TraceContext.parse(TP, longState)).isEqualTo(new TraceContext(TP, null));
        assertThat(TraceContext.parse(TP, "a=\u00e9")).isEqualTo(new TraceContext(TP, null));
        assertThat(TraceContext.parse(TP, "a=1\nb=2")).isEqualTo(new TraceContext(TP, null));
        assertThat(TraceContext.parse(TP, "")).isEqualTo(new TraceContext(TP, null));
        var turn = (ToolCallsEvent) codec.decode("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"calls\":[],"
                + "\"traceparent\":\"" + TP + "\",\"tracestate\":[1]}");
        assertThat(turn.trace()).isEqualTo(new TraceContext(TP, null));
        assertThatThrownBy(() -> new TraceContext("x", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TraceContext(TP, longState)).isInstanceOf(IllegalArgumentException.class);
    }

    static List<OutboundEvent> outbound() {
        return Samples.outbound();
    }

    @ParameterizedTest
    @MethodSource("outbound")
    void everyOutboundEventWritesAndReadsItsTraceContext(OutboundEvent event) {
        TraceContext trace = new TraceContext(TP, "a=1");
        OutboundEvent traced = event.withTrace(trace);
        assertThat(traced.trace()).isEqualTo(trace);
        assertThat(traced.withTrace(null)).isEqualTo(event);
        String json = codec.encode(traced);
        assertThat(json).endsWith(",\"traceparent\":\"" + TP + "\",\"tracestate\":\"a=1\"}");
        assertThat(SchemaConformanceTest.errors(event.type(), Samples.json(json))).isEmpty();
        OutboundEvent back = codec.decodeOutbound(json);
        assertThat(back.trace()).isEqualTo(trace);
        assertThat(codec.decodeOutbound(codec.encode(event)).trace()).isNull();
        String invalid = json.replace(TP, "00-zz");
        assertThat(codec.decodeOutbound(invalid).trace()).isNull();
    }
}
