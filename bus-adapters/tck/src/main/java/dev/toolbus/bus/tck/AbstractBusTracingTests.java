package dev.toolbus.bus.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.spi.ToolBus;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * A trace started by the bot core's {@code traceparent} continues over the broker: the turn's input
 * carries it in, the turn and each call are spans of that trace, and every event written names its
 * span (in the JSON, and where the broker has headers, in them too).
 */
public abstract class AbstractBusTracingTests extends AbstractBusTests {

    static final String TRACE_ID = "5b8aa5a2d2c872e8321cf37308d69df2";
    static final String CLIENT_SPAN = "051581bf3cb55c13";

    private OtelTracing tracing;

    /**
     * Checks what the broker carries beside the JSON of the conversation's events (Kafka: the
     * {@code traceparent} and {@code tracestate} headers of each record); nothing by default.
     */
    protected void assertTraceOutsideTheJson(String streamId, List<String> traceparents, String tracestate) {
    }

    @BeforeEach
    void startAnExecutorWithTracing() {
        tracing = closeLater(new OtelTracing());
        ToolSpec echo = new ToolSpec(ToolDefinition.builder("echo").description("echo")
                .parameter(ToolParameter.of("text", ToolParamType.STRING, "text")).build(),
                (a, c) -> Mono.just(ToolResult.text(a.string("text"))));
        ToolExecutor executor = closeLater(ToolExecutor.builder().tool(echo).observationRegistry(tracing.registry).build());
        ToolBus bus = broker.bus(BusOptions.named("trace").build());
        closeLater(() -> bus.closeGracefully().block(Duration.ofSeconds(30)));
        executor.attach(bus);
    }

    private static String attr(SpanData s, String key) {
        return s.getAttributes().get(AttributeKey.stringKey(key));
    }

    @Test
    void theTurnAndEachCallAreSpansOfTheBotCoresTrace_andEveryEventNamesItsSpan() {
        broker.send("rs", "{\"type\":\"tool_calls\",\"stream_id\":\"rs\",\"turn_id\":\"rt1\",\"calls\":["
                + "{\"tool_call_id\":\"c1\",\"name\":\"echo\",\"arguments\":{\"text\":\"one\"}},"
                + "{\"tool_call_id\":\"c2\",\"name\":\"echo\",\"arguments\":{\"text\":\"two\"}}],"
                + "\"traceparent\":\"00-" + TRACE_ID + "-" + CLIENT_SPAN + "-01\",\"tracestate\":\"core=rs\"}");
        await().atMost(Duration.ofSeconds(60)).until(() -> broker.events("rs").size() == 3);
        await().atMost(Duration.ofSeconds(10)).until(() -> tracing.named("toolbus turn").size() == 1);

        SpanData turn = tracing.named("toolbus turn").get(0);
        assertThat(turn.getTraceId()).isEqualTo(TRACE_ID);
        assertThat(turn.getParentSpanId()).isEqualTo(CLIENT_SPAN);
        List<SpanData> calls = new ArrayList<>(tracing.named("execute_tool echo"));
        calls.sort((a, b) -> attr(a, "tool_call_id").compareTo(attr(b, "tool_call_id")));
        assertThat(calls).hasSize(2).allSatisfy(c -> {
            assertThat(c.getTraceId()).isEqualTo(TRACE_ID);
            assertThat(c.getParentSpanId()).isEqualTo(turn.getSpanId());
            assertThat(attr(c, "outcome")).isEqualTo("ok");
        });

        List<JsonNode> events = broker.events("rs").stream().map(Events::json).toList();
        assertThat(Events.types(events)).containsExactly("tool_result", "tool_result", "turn_completed");
        List<String> expected = List.of("00-" + TRACE_ID + "-" + calls.get(0).getSpanId() + "-01",
                "00-" + TRACE_ID + "-" + calls.get(1).getSpanId() + "-01",
                "00-" + TRACE_ID + "-" + turn.getSpanId() + "-01");
        for (int i = 0; i < 3; i++) {
            assertThat(events.get(i).get("traceparent").asText()).as("traceparent of event %d", i).isEqualTo(expected.get(i));
        }
        assertThat(events).allSatisfy(e -> assertThat(e.get("tracestate").asText()).isEqualTo("core=rs"));
        assertTraceOutsideTheJson("rs", expected, "core=rs");
    }

    @Test
    void aTurnWithoutAValidTraceparent_isItsOwnTrace() {
        broker.send("rs2", "{\"type\":\"tool_call\",\"stream_id\":\"rs2\",\"turn_id\":\"rt2\",\"tool_call_id\":\"c1\","
                + "\"name\":\"echo\",\"arguments\":{\"text\":\"x\"},\"traceparent\":\"not-a-traceparent\"}");
        await().atMost(Duration.ofSeconds(60)).until(() -> broker.events("rs2").size() == 2);
        await().atMost(Duration.ofSeconds(10)).until(() -> tracing.named("toolbus turn").size() == 1);
        SpanData turn = tracing.named("toolbus turn").get(0);
        assertThat(turn.getParentSpanContext().isValid()).isFalse();
        JsonNode completed = Events.json(broker.events("rs2").get(1));
        assertThat(completed.get("traceparent").asText()).isEqualTo("00-" + turn.getTraceId() + "-"
                + turn.getSpanId() + "-01");
    }
}
