package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.ToolExecutorTracingTest.CLIENT;
import static dev.toolbus.executor.ToolExecutorTracingTest.add;
import static dev.toolbus.executor.ToolExecutorTracingTest.attr;
import static dev.toolbus.executor.ToolExecutorTracingTest.tracedTurn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.metrics.ToolMetrics;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Calls as spans and metrics by the OpenTelemetry GenAI semantic conventions, on real spans (the
 * OpenTelemetry SDK behind the Micrometer bridge): an {@code execute_tool {gen_ai.tool.name}} span per
 * call with {@code gen_ai.operation.name}, {@code gen_ai.tool.name}, {@code gen_ai.tool.call.id},
 * {@code gen_ai.tool.type} and {@code gen_ai.tool.description}; {@code error.type} and an error status on
 * failure; {@code gen_ai.execute_tool.duration} beside the {@code toolbus.*} meters while observing, and
 * not at all while not.
 */
class GenAiTracingTest {

    static ToolSpec failing() {
        return new ToolSpec(ToolDefinition.builder("boom").description("always fails").build(),
                (a, c) -> Mono.just(ToolResult.error("the disk is full")));
    }

    static ToolSpec remote() {
        return new ToolSpec(ToolDefinition.builder("remote_search").description("searches, on an MCP server").build(),
                (a, c) -> Mono.just(ToolResult.text("found")));
    }

    @Test
    void eachCallIsAnExecuteToolSpanWithTheGenAiAttributes() {
        try (OtelTracing tracing = new OtelTracing();
             ToolExecutor ex = ToolExecutor.builder().observationRegistry(tracing.registry)
                     .tool(add()).tool(failing()).build()) {
            ex.registry().register(remote(), ToolSource.MCP);
            ex.execute(tracedTurn(CLIENT, call("c1", "add", "{\"a\":2,\"b\":40}"), call("c2", "boom", "{}"),
                    call("c3", "remote_search", "{}"), call("c4", "read_tool_result", "{\"tool_call_id\":\"nothing\"}"),
                    call("c5", "nope", "{}"))).blockLast(Duration.ofSeconds(10));

            SpanData ok = tracing.named("execute_tool add").get(0);
            assertThat(ok.getKind()).isEqualTo(SpanKind.INTERNAL);
            assertThat(attr(ok, "gen_ai.operation.name")).isEqualTo("execute_tool");
            assertThat(attr(ok, "gen_ai.tool.name")).isEqualTo("add");
            assertThat(attr(ok, "gen_ai.tool.call.id")).isEqualTo("c1");
            assertThat(attr(ok, "gen_ai.tool.type")).isEqualTo("function");
            assertThat(attr(ok, "gen_ai.tool.description")).isEqualTo("adds");
            assertThat(attr(ok, "error.type")).isNull();
            assertThat(ok.getStatus().getStatusCode()).isNotEqualTo(StatusCode.ERROR);

            SpanData failed = tracing.named("execute_tool boom").get(0);
            assertThat(attr(failed, "gen_ai.tool.call.id")).isEqualTo("c2");
            assertThat(attr(failed, "error.type")).isEqualTo("tool_error");
            assertThat(attr(failed, "outcome")).isEqualTo("tool_error");
            assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
            // the status names the code only: the error's text stays out of the trace
            assertThat(failed.getStatus().getDescription()).isEqualTo("TOOL_ERROR");
            assertThat(failed.getEvents().toString()).doesNotContain("the disk is full");

            assertThat(attr(tracing.named("execute_tool remote_search").get(0), "gen_ai.tool.type"))
                    .isEqualTo("extension");
            SpanData stored = tracing.named("execute_tool read_tool_result").get(0);
            assertThat(attr(stored, "gen_ai.tool.type")).isEqualTo("datastore");
            SpanData unknown = tracing.named("execute_tool unknown").get(0);
            assertThat(attr(unknown, "gen_ai.tool.name")).isEqualTo("unknown");
            assertThat(attr(unknown, "gen_ai.tool.description")).isNull();
            assertThat(attr(unknown, "error.type")).isEqualTo("unknown_tool");
            assertThat(unknown.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        }
    }

    @Test
    void aLongDescriptionIsCutOnTheSpan() {
        String description = "d".repeat(1023) + "\uD83D\uDE00" + "tail";
        ToolSpec verbose = new ToolSpec(ToolDefinition.builder("verbose").description(description).build(),
                (a, c) -> Mono.just(ToolResult.text("ok")));
        try (OtelTracing tracing = new OtelTracing();
             ToolExecutor ex = ToolExecutor.builder().observationRegistry(tracing.registry).tool(verbose).build()) {
            ex.execute(tracedTurn(CLIENT, call("c1", "verbose", "{}"))).blockLast(Duration.ofSeconds(10));
            // 1,024 characters would split the surrogate pair: the cut keeps 1,023
            assertThat(attr(tracing.named("execute_tool verbose").get(0), "gen_ai.tool.description"))
                    .isEqualTo("d".repeat(1023));
        }
    }

    @Test
    void anAbandonedCallEndsCancelledWithAnErrorStatus() {
        ToolSpec hang = TestTools.hang(new java.util.concurrent.atomic.AtomicInteger(),
                new java.util.concurrent.atomic.AtomicInteger());
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (OtelTracing tracing = new OtelTracing();
             ToolExecutor ex = ToolExecutor.builder().observationRegistry(tracing.registry).meterRegistry(meters)
                     .tool(hang).build()) {
            ex.execute(tracedTurn(CLIENT, call("c1", "hang", "{}"))).take(Duration.ofMillis(200))
                    .blockLast(Duration.ofSeconds(10));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> tracing.named("execute_tool hang").size() == 1);
            SpanData span = tracing.named("execute_tool hang").get(0);
            assertThat(attr(span, "error.type")).isEqualTo("cancelled");
            assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
            assertThat(meters.get(ToolMetrics.EXECUTE_TOOL_DURATION).tag("gen_ai.tool.name", "hang")
                    .tag("error.type", "cancelled").timer().count()).isEqualTo(1);
        }
    }

    @Test
    void theDurationMetricFollowsTheConventionsBesideTheToolbusMeters() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (OtelTracing tracing = new OtelTracing();
             ToolExecutor ex = ToolExecutor.builder().observationRegistry(tracing.registry).meterRegistry(meters)
                     .tool(add()).tool(failing()).build()) {
            ex.execute(tracedTurn(CLIENT, call("c1", "add", "{\"a\":2,\"b\":40}"), call("c2", "boom", "{}"),
                    call("c3", "add", "{\"a\":1,\"b\":1}"))).blockLast(Duration.ofSeconds(10));

            Timer ok = meters.get(ToolMetrics.EXECUTE_TOOL_DURATION).tag("gen_ai.operation.name", "execute_tool")
                    .tag("gen_ai.tool.name", "add").tag("gen_ai.tool.type", "function").timer();
            assertThat(ok.count()).isEqualTo(2);
            assertThat(ok.getId().getTag("error.type")).as("no error.type on success").isNull();
            Timer failed = meters.get(ToolMetrics.EXECUTE_TOOL_DURATION).tag("gen_ai.tool.name", "boom")
                    .tag("error.type", "tool_error").timer();
            assertThat(failed.count()).isEqualTo(1);
            assertThat(Arrays.stream(ok.takeSnapshot().histogramCounts()).map(CountAtBucket::bucket)
                    .map(b -> b / 1e9)).containsExactly(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12,
                            10.24, 20.48, 40.96, 81.92);
            // the same calls in the toolbus meters
            assertThat(meters.get(ToolMetrics.CALLS).tag("tool", "add").tag("outcome", "ok").counter().count())
                    .isEqualTo(2);
            SpanData span = tracing.named("execute_tool boom").get(0);
            long spanNanos = span.getEndEpochNanos() - span.getStartEpochNanos();
            assertThat(failed.totalTime(TimeUnit.NANOSECONDS)).as("the metric measures the span's time")
                    .isGreaterThan(0).isLessThan(spanNanos + TimeUnit.SECONDS.toNanos(1));
        }
    }

    @Test
    void withoutAnObservingRegistryThereIsNoGenAiMetric() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (ToolExecutor ex = ToolExecutor.builder().meterRegistry(meters).tool(add()).tool(failing()).build()) {
            List<OutboundEvent> events = ex.execute(tracedTurn(CLIENT, call("c1", "add", "{\"a\":2,\"b\":40}"),
                    call("c2", "boom", "{}"))).collectList().block(Duration.ofSeconds(10));
            assertThat(events).hasSize(3);
            assertThat(meters.find(ToolMetrics.EXECUTE_TOOL_DURATION).meters()).isEmpty();
            assertThat(meters.get(ToolMetrics.CALLS).tag("tool", "add").counter().count()).isEqualTo(1);
        }
    }

    @Test
    void prometheusExposesSuccessesAndFailuresOfOneTool() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ToolSpec sometimes = new ToolSpec(ToolDefinition.builder("sometimes").description("fails on odd").build(),
                (a, c) -> Mono.just(a.integer("n", 0) % 2 == 0 ? ToolResult.text("even") : ToolResult.error("odd")));
        try (OtelTracing tracing = new OtelTracing();
             ToolExecutor ex = ToolExecutor.builder().observationRegistry(tracing.registry).meterRegistry(prometheus)
                     .tool(sometimes).build()) {
            ex.execute(tracedTurn(CLIENT, call("c1", "sometimes", "{\"n\":2}"), call("c2", "sometimes", "{\"n\":3}")))
                    .blockLast(Duration.ofSeconds(10));
            assertThat(prometheus.find(ToolMetrics.EXECUTE_TOOL_DURATION).meters()).extracting(Meter::getId)
                    .hasSize(2);
            String scrape = prometheus.scrape();
            assertThat(scrape).contains("gen_ai_execute_tool_duration_seconds_count{gen_ai_operation_name=\"execute_tool\","
                    + "gen_ai_tool_name=\"sometimes\",gen_ai_tool_type=\"function\"} 1");
            assertThat(scrape).contains("gen_ai_execute_tool_duration_seconds_count{error_type=\"tool_error\","
                    + "gen_ai_operation_name=\"execute_tool\",gen_ai_tool_name=\"sometimes\",gen_ai_tool_type=\"function\"} 1");
            assertThat(scrape).contains("gen_ai_execute_tool_duration_seconds_bucket{error_type=\"tool_error\","
                    + "gen_ai_operation_name=\"execute_tool\",gen_ai_tool_name=\"sometimes\",gen_ai_tool_type=\"function\","
                    + "le=\"81.92\"} 1");
        }
    }
}
