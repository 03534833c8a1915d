package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.bus.testing.OtelTracing;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.Json;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * A trace started by the bot core's {@code traceparent} continues over a real Redis: the turn entry's
 * JSON carries it in, the turn and each call are spans of that trace, and every result entry's JSON
 * names its span. Against the Redis started by scripts/services/redis.sh; skipped without it.
 */
class RedisTracingTest {

    static final String TRACE_ID = "5b8aa5a2d2c872e8321cf37308d69df2";
    static final String CLIENT_SPAN = "051581bf3cb55c13";

    private RedisTestSupport redis;
    private OtelTracing tracing;
    private ToolExecutor executor;
    private RedisStreamsBus bus;
    private Disposable attached;

    @BeforeEach
    void setUp() {
        redis = RedisTestSupport.require();
        tracing = new OtelTracing();
        ToolSpec echo = new ToolSpec(ToolDefinition.builder("echo").description("echo")
                .parameter(ToolParameter.of("text", ToolParamType.STRING, "text")).build(),
                (a, c) -> Mono.just(ToolResult.text(a.string("text"))));
        executor = ToolExecutor.builder().tool(echo).observationRegistry(tracing.registry).build();
        bus = RedisStreamsBus.fromUri(redis.url, redis.config().build());
        attached = executor.attach(bus);
    }

    @AfterEach
    void tearDown() {
        if (attached != null) {
            attached.dispose();
            bus.closeGracefully().block(Duration.ofSeconds(10));
            executor.closeGracefully().block(Duration.ofSeconds(10));
            tracing.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    static JsonNode parse(String s) {
        try {
            return Json.mapper().readTree(s);
        } catch (Exception e) {
            throw new AssertionError(s, e);
        }
    }

    static String attr(SpanData s, String key) {
        return s.getAttributes().get(AttributeKey.stringKey(key));
    }

    @Test
    void theTurnAndEachCallAreSpansOfTheBotCoresTraceAndEveryResultEntryNamesItsSpan() {
        redis.addCall("{\"type\":\"tool_calls\",\"stream_id\":\"rs\",\"turn_id\":\"rt1\",\"calls\":["
                + "{\"tool_call_id\":\"c1\",\"name\":\"echo\",\"arguments\":{\"text\":\"one\"}},"
                + "{\"tool_call_id\":\"c2\",\"name\":\"echo\",\"arguments\":{\"text\":\"two\"}}],"
                + "\"traceparent\":\"00-" + TRACE_ID + "-" + CLIENT_SPAN + "-01\",\"tracestate\":\"core=rs\"}");
        String results = redis.prefix + "results:rs";
        await().atMost(Duration.ofSeconds(20)).until(() -> redis.events(results).size() == 3);
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

        List<JsonNode> events = redis.events(results).stream().map(RedisTracingTest::parse).toList();
        assertThat(events).extracting(e -> e.get("type").asText())
                .containsExactly("tool_result", "tool_result", "turn_completed");
        assertThat(events.get(0).get("traceparent").asText())
                .isEqualTo("00-" + TRACE_ID + "-" + calls.get(0).getSpanId() + "-01");
        assertThat(events.get(1).get("traceparent").asText())
                .isEqualTo("00-" + TRACE_ID + "-" + calls.get(1).getSpanId() + "-01");
        assertThat(events.get(2).get("traceparent").asText())
                .isEqualTo("00-" + TRACE_ID + "-" + turn.getSpanId() + "-01");
        assertThat(events).allSatisfy(e -> assertThat(e.get("tracestate").asText()).isEqualTo("core=rs"));
    }

    @Test
    void aTurnWithoutTraceparentIsItsOwnTrace() {
        redis.addCall("{\"type\":\"tool_call\",\"stream_id\":\"rs2\",\"turn_id\":\"rt2\",\"tool_call_id\":\"c1\","
                + "\"name\":\"echo\",\"arguments\":{\"text\":\"x\"},\"traceparent\":\"not-a-traceparent\"}");
        String results = redis.prefix + "results:rs2";
        await().atMost(Duration.ofSeconds(20)).until(() -> redis.events(results).size() == 2);
        await().atMost(Duration.ofSeconds(10)).until(() -> tracing.named("toolbus turn").size() == 1);
        SpanData turn = tracing.named("toolbus turn").get(0);
        assertThat(turn.getParentSpanContext().isValid()).isFalse();
        JsonNode completed = parse(redis.events(results).get(1));
        assertThat(completed.get("traceparent").asText()).isEqualTo("00-" + turn.getTraceId() + "-"
                + turn.getSpanId() + "-01");
    }
}
