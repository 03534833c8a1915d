package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.ToolExecutorTracingTest.CLIENT;
import static dev.toolbus.executor.ToolExecutorTracingTest.attr;
import static dev.toolbus.executor.ToolExecutorTracingTest.tracedTurn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.ControlEvent;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.spi.ControlOutcome;
import io.micrometer.observation.Observation;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Control events as spans ({@code toolbus cancel}, {@code toolbus approval_response},
 * {@code toolbus input_response}) on the OpenTelemetry SDK: a child of the observation the
 * {@code control()} subscriber runs in, else the root of its own trace, with the event's type, ids and
 * outcome.
 */
class ControlTracingTest {

    static ControlEvent control(String json) {
        return (ControlEvent) EventCodec.defaults().decode(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aCancelIsASpanWithItsOutcome_andTheCallItStoppedEndsCancelled() {
        AtomicInteger started = new AtomicInteger();
        try (OtelTracing tracing = new OtelTracing();
             ToolExecutor ex = ToolExecutor.builder().observationRegistry(tracing.registry)
                     .tool(TestTools.hang(started, new AtomicInteger())).build()) {
            var events = ex.execute(tracedTurn(CLIENT, call("c1", "hang", "{}"))).collectList().toFuture();
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> started.get() == 1);
            ControlOutcome o = ex.control(control("{\"type\":\"cancel\",\"stream_id\":\"s1\",\"turn_id\":\"t1\","
                    + "\"tool_call_id\":\"c1\",\"reason\":\"user said stop\"}")).block(Duration.ofSeconds(10));
            assertThat(o).isEqualTo(ControlOutcome.APPLIED);
            List<OutboundEvent> out = events.join();
            assertThat(((ToolResultEvent) out.get(0)).error().code().name()).isEqualTo("CANCELLED");

            SpanData cancel = tracing.named("toolbus cancel").get(0);
            assertThat(cancel.getKind()).isEqualTo(SpanKind.CONSUMER);
            assertThat(cancel.getParentSpanContext().isValid()).as("no traceparent, no subscriber's span").isFalse();
            assertThat(attr(cancel, "type")).isEqualTo("cancel");
            assertThat(attr(cancel, "outcome")).isEqualTo("applied");
            assertThat(attr(cancel, "stream_id")).isEqualTo("s1");
            assertThat(attr(cancel, "turn_id")).isEqualTo("t1");
            assertThat(attr(cancel, "tool_call_id")).isEqualTo("c1");
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !tracing.named("execute_tool hang").isEmpty());
            assertThat(attr(tracing.named("execute_tool hang").get(0), "error.type")).isEqualTo("cancelled");

            // nothing left to cancel: the span says so
            assertThat(ex.control(control("{\"type\":\"cancel\",\"stream_id\":\"s1\"}")).block(Duration.ofSeconds(10)))
                    .isEqualTo(ControlOutcome.NOTHING_TO_DO);
            assertThat(tracing.named("toolbus cancel")).extracting(s -> attr(s, "outcome"))
                    .containsExactly("applied", "nothing_to_do");
        }
    }

    @Test
    void anAnswerIsASpanOfTheSubscribersObservation_withItsDecisionOrAction() {
        try (OtelTracing tracing = new OtelTracing();
             ToolExecutor ex = ToolExecutor.builder().observationRegistry(tracing.registry).build()) {
            Observation ui = Observation.start("ui.click", tracing.registry);
            ControlOutcome approval = ex.control(control("{\"type\":\"approval_response\",\"stream_id\":\"s1\","
                    + "\"approval_id\":\"ap-1\",\"decision\":\"approve_session\"}"))
                    .contextWrite(c -> c.put(ObservationThreadLocalAccessor.KEY, ui)).block(Duration.ofSeconds(10));
            ControlOutcome input = ex.control(control("{\"type\":\"input_response\",\"stream_id\":\"s1\","
                    + "\"input_id\":\"in-1\",\"action\":\"decline\"}"))
                    .contextWrite(c -> c.put(ObservationThreadLocalAccessor.KEY, ui)).block(Duration.ofSeconds(10));
            ui.stop();
            assertThat(approval).isEqualTo(ControlOutcome.UNKNOWN_REQUEST);
            assertThat(input).isEqualTo(ControlOutcome.UNKNOWN_REQUEST);

            SpanData click = tracing.named("ui.click").get(0);
            SpanData a = tracing.named("toolbus approval_response").get(0);
            SpanData i = tracing.named("toolbus input_response").get(0);
            for (SpanData s : List.of(a, i)) {
                assertThat(s.getTraceId()).isEqualTo(click.getTraceId());
                assertThat(s.getParentSpanId()).isEqualTo(click.getSpanId());
                assertThat(attr(s, "outcome")).isEqualTo("unknown_request");
                assertThat(attr(s, "stream_id")).isEqualTo("s1");
            }
            assertThat(attr(a, "approval_id")).isEqualTo("ap-1");
            assertThat(attr(a, "decision")).isEqualTo("approve_session");
            assertThat(attr(i, "input_id")).isEqualTo("in-1");
            assertThat(attr(i, "action")).isEqualTo("decline");
        }
    }

    @Test
    void aControlHandlerThatThrowsNeverStopsTheControl() {
        io.micrometer.observation.ObservationRegistry registry = io.micrometer.observation.ObservationRegistry.create();
        registry.observationConfig().observationHandler(new io.micrometer.observation.ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }

            @Override
            public void onStart(Observation.Context context) {
                throw new IllegalStateException("handler broken on start");
            }
        });
        AtomicInteger started = new AtomicInteger();
        try (ToolExecutor ex = ToolExecutor.builder().observationRegistry(registry)
                .tool(TestTools.hang(started, new AtomicInteger())).build()) {
            var events = ex.execute(tracedTurn(CLIENT, call("c1", "hang", "{}"))).collectList().toFuture();
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> started.get() == 1);
            assertThat(ex.control(control("{\"type\":\"cancel\",\"stream_id\":\"s1\"}")).block(Duration.ofSeconds(10)))
                    .isEqualTo(ControlOutcome.APPLIED);
            assertThat(((ToolResultEvent) events.join().get(0)).error().code().name()).isEqualTo("CANCELLED");
        }
    }

    @Test
    void aControlEventsTraceparentParentsItsSpan_overTheSubscribersObservation() {
        try (OtelTracing tracing = new OtelTracing();
             ToolExecutor ex = ToolExecutor.builder().observationRegistry(tracing.registry).build()) {
            Observation other = Observation.start("app.other", tracing.registry);
            ex.control(control("{\"type\":\"cancel\",\"stream_id\":\"s1\",\"traceparent\":\""
                    + CLIENT.traceparent() + "\",\"tracestate\":\"bot=core\"}"))
                    .contextWrite(c -> c.put(ObservationThreadLocalAccessor.KEY, other)).block(Duration.ofSeconds(10));
            ex.control(control("{\"type\":\"input_response\",\"stream_id\":\"s1\",\"input_id\":\"in-9\","
                    + "\"action\":\"accept\",\"content\":{},\"traceparent\":\"" + CLIENT.traceparent() + "\"}"))
                    .block(Duration.ofSeconds(10));
            other.stop();
            for (String name : List.of("toolbus cancel", "toolbus input_response")) {
                SpanData s = tracing.named(name).get(0);
                assertThat(s.getTraceId()).as(name).isEqualTo(ToolExecutorTracingTest.TRACE_ID);
                assertThat(s.getParentSpanId()).as(name).isEqualTo(ToolExecutorTracingTest.CLIENT_SPAN);
            }
        }
    }

    @Test
    void onABusTheControlJoinsTheCallersTrace_andAnUnknownAnswersErrorCarriesIt() throws Exception {
        dev.toolbus.bus.InMemoryBus bus = dev.toolbus.bus.InMemoryBus.create();
        try (OtelTracing tracing = new OtelTracing();
             ToolExecutor ex = ToolExecutor.builder().observationRegistry(tracing.registry).build()) {
            var error = bus.events().next().toFuture();
            ex.attach(bus);
            bus.send("{\"type\":\"approval_response\",\"stream_id\":\"s7\",\"approval_id\":\"ap-gone\","
                    + "\"decision\":\"approve\",\"traceparent\":\"" + CLIENT.traceparent() + "\",\"tracestate\":\"bot=core\"}");
            OutboundEvent e = error.get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(e).isInstanceOf(dev.toolbus.protocol.ErrorEvent.class);
            assertThat(((dev.toolbus.protocol.ErrorEvent) e).code().name()).isEqualTo("UNKNOWN_REQUEST");
            assertThat(e.trace()).isEqualTo(CLIENT);
            Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> !tracing.named("toolbus approval_response").isEmpty());
            SpanData s = tracing.named("toolbus approval_response").get(0);
            assertThat(s.getParentSpanId()).isEqualTo(ToolExecutorTracingTest.CLIENT_SPAN);
            assertThat(attr(s, "outcome")).isEqualTo("unknown_request");
        }
    }
}
