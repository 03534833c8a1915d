package dev.toolbus.gateway;

import static dev.toolbus.gateway.TestGateway.TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.bus.tck.OtelTracing;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A trace started by the client's {@code traceparent} continues through a real gateway: the turn and
 * each call are spans of the client's trace (recorded in-process by the OpenTelemetry SDK behind the
 * Micrometer bridge), and every event the client receives names one of those spans.
 */
class GatewayTracingTest {

    static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
    static final String CLIENT_SPAN = "b7ad6b7169203331";
    static final String TRACEPARENT = "00-" + TRACE_ID + "-" + CLIENT_SPAN + "-01";

    static OtelTracing tracing;
    static ToolExecutor executor;
    static GatewayServer server;
    static Http http;

    @BeforeAll
    static void start() {
        tracing = new OtelTracing();
        executor = ToolExecutor.builder().tools(TestGateway.tools()).observationRegistry(tracing.registry)
                .settings(ExecutionSettings.builder().cacheResults(false).build()).build();
        server = Gateway.builder().executor(executor).token(TOKEN).build().start();
        http = new Http(server.baseUrl());
    }

    @AfterAll
    static void stop() {
        server.close();
        executor.closeGracefully().block(Duration.ofSeconds(10));
        tracing.close();
    }

    static String turn(String stream, String turnId, String traceFields) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turnId + "\",\"calls\":["
                + "{\"tool_call_id\":\"" + turnId + "-1\",\"name\":\"echo\",\"arguments\":{\"text\":\"a\"}},"
                + "{\"tool_call_id\":\"" + turnId + "-2\",\"name\":\"sleep\",\"arguments\":{\"ms\":20}}]"
                + traceFields + "}";
    }

    /** The spans of one turn: the turn span first, then its calls in call order (waits for them to end). */
    static List<SpanData> spansOf(String turnId) {
        List<SpanData> out = new ArrayList<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            out.clear();
            SpanData turnSpan = null;
            for (SpanData s : tracing.finished()) {
                if (turnId.equals(s.getAttributes().get(io.opentelemetry.api.common.AttributeKey.stringKey("turn_id")))) {
                    turnSpan = s;
                }
            }
            if (turnSpan == null) {
                return false;
            }
            out.add(turnSpan);
            for (String id : List.of(turnId + "-1", turnId + "-2")) {
                for (SpanData s : tracing.finished()) {
                    if (id.equals(s.getAttributes().get(io.opentelemetry.api.common.AttributeKey.stringKey(
                            "tool_call_id")))) {
                        out.add(s);
                    }
                }
            }
            return out.size() == 3;
        });
        return out;
    }

    static void assertTraced(List<JsonNode> events, String turnId) {
        List<SpanData> spans = spansOf(turnId);
        SpanData turnSpan = spans.get(0);
        assertThat(turnSpan.getTraceId()).isEqualTo(TRACE_ID);
        assertThat(turnSpan.getParentSpanId()).isEqualTo(CLIENT_SPAN);
        for (SpanData call : spans.subList(1, 3)) {
            assertThat(call.getTraceId()).isEqualTo(TRACE_ID);
            assertThat(call.getParentSpanId()).isEqualTo(turnSpan.getSpanId());
        }
        assertThat(events).extracting(e -> e.get("type").asText())
                .containsExactly("tool_result", "tool_result", "turn_completed");
        assertThat(events.get(0).get("traceparent").asText())
                .isEqualTo("00-" + TRACE_ID + "-" + spans.get(1).getSpanId() + "-01");
        assertThat(events.get(1).get("traceparent").asText())
                .isEqualTo("00-" + TRACE_ID + "-" + spans.get(2).getSpanId() + "-01");
        assertThat(events.get(2).get("traceparent").asText())
                .isEqualTo("00-" + TRACE_ID + "-" + turnSpan.getSpanId() + "-01");
        for (JsonNode e : events) {
            assertThat(e.get("tracestate").asText()).isEqualTo("client=1");
        }
    }

    @Test
    void overHttpTheTraceparentFieldParentsTheTurnAndComesBackOnEveryEvent() {
        Http.Response r = http.post("/v1/turns", TOKEN, turn("http", "th1",
                ",\"traceparent\":\"" + TRACEPARENT + "\",\"tracestate\":\"client=1\""));
        assertThat(r.status()).isEqualTo(200);
        List<JsonNode> events = new ArrayList<>();
        r.json().forEach(events::add);
        assertTraced(events, "th1");
    }

    @Test
    void overHttpTheW3cHeadersWorkToo() {
        Http.Response r = http.post("/v1/turns", TOKEN, turn("http", "th2", ""),
                h -> h.set("traceparent", TRACEPARENT).set("tracestate", "client=1"));
        List<JsonNode> events = new ArrayList<>();
        r.json().forEach(events::add);
        assertTraced(events, "th2");
    }

    @Test
    void overWebSocketTheTraceparentFieldParentsTheTurnAndComesBackOnEveryEvent() {
        List<JsonNode> events = GatewayWebSocketTest.exchangeWith(server.port(), List.of(turn("ws", "tw1",
                ",\"traceparent\":\"" + TRACEPARENT + "\",\"tracestate\":\"client=1\"")), 3);
        assertTraced(events, "tw1");
    }

    @Test
    void anInvalidTraceparentIsIgnored() {
        Http.Response r = http.post("/v1/turns", TOKEN, turn("http", "th3",
                ",\"traceparent\":\"00-nothex-" + CLIENT_SPAN + "-01\""));
        assertThat(r.status()).isEqualTo(200);
        JsonNode events = r.json();
        assertThat(events.get(0).get("is_error").asBoolean()).isFalse();
        SpanData turnSpan = spansOf("th3").get(0);
        assertThat(turnSpan.getTraceId()).isNotEqualTo(TRACE_ID);
        assertThat(turnSpan.getParentSpanContext().isValid()).isFalse();
        assertThat(events.get(2).get("traceparent").asText()).contains(turnSpan.getTraceId());
    }
}
