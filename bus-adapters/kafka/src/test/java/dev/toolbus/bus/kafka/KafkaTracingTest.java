package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.bus.testing.OtelTracing;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.Json;
import dev.toolbus.tool.method.Tools;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A trace started by the bot core's {@code traceparent} continues over a real Kafka: the turn and its
 * call are spans of that trace, and each result record names its span in the JSON and in the
 * {@code traceparent} header. Against the broker started by scripts/services/kafka.sh; skipped without it.
 */
class KafkaTracingTest {

    static final String TRACE_ID = "6e0c63257de34c92bf9efcd03927272e";
    static final String CLIENT_SPAN = "e457b5a2e4d86bd1";

    private KafkaTestSupport kafka;
    private OtelTracing tracing;
    private ToolExecutor executor;
    private KafkaBus bus;

    @BeforeEach
    void setUp() {
        kafka = KafkaTestSupport.require();
        tracing = new OtelTracing();
        executor = ToolExecutor.builder().tool(Tools.function("echo", "Returns its arguments", json -> json))
                .observationRegistry(tracing.registry).build();
        bus = KafkaBus.builder().config(kafka.config().clientId(kafka.prefix + "trace").build()).build();
        bus.start().block(Duration.ofSeconds(30));
        executor.attach(bus);
    }

    @AfterEach
    void tearDown() {
        if (bus != null) {
            executor.close();
            bus.closeGracefully().block(Duration.ofSeconds(30));
            tracing.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    static JsonNode parse(String s) {
        try {
            return Json.mapper().readTree(s);
        } catch (Exception e) {
            throw new AssertionError(s, e);
        }
    }

    static String header(ConsumerRecord<String, byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.US_ASCII);
    }

    @Test
    void theTurnAndItsCallAreSpansOfTheBotCoresTraceAndEachRecordNamesItsSpan() {
        kafka.send("ks", "{\"type\":\"tool_call\",\"stream_id\":\"ks\",\"turn_id\":\"kt1\",\"tool_call_id\":\"c1\","
                + "\"name\":\"echo\",\"arguments\":{\"x\":1},\"traceparent\":\"00-" + TRACE_ID + "-" + CLIENT_SPAN
                + "-01\",\"tracestate\":\"core=k\"}");
        await().atMost(Duration.ofSeconds(60)).until(() -> kafka.results().stream()
                .filter(r -> "ks".equals(r.key())).count() == 2);
        await().atMost(Duration.ofSeconds(10)).until(() -> tracing.named("toolbus turn").size() == 1);
        SpanData turn = tracing.named("toolbus turn").get(0);
        SpanData call = tracing.named("execute_tool echo").get(0);
        assertThat(turn.getTraceId()).isEqualTo(TRACE_ID);
        assertThat(turn.getParentSpanId()).isEqualTo(CLIENT_SPAN);
        assertThat(call.getParentSpanId()).isEqualTo(turn.getSpanId());

        List<ConsumerRecord<String, byte[]>> records = kafka.results().stream().filter(r -> "ks".equals(r.key()))
                .toList();
        String[] spans = {call.getSpanId(), turn.getSpanId()};
        for (int i = 0; i < 2; i++) {
            ConsumerRecord<String, byte[]> r = records.get(i);
            String expected = "00-" + TRACE_ID + "-" + spans[i] + "-01";
            assertThat(parse(KafkaTestSupport.value(r)).get("traceparent").asText()).isEqualTo(expected);
            assertThat(header(r, "traceparent")).isEqualTo(expected);
            assertThat(header(r, "tracestate")).isEqualTo("core=k");
        }
    }
}
