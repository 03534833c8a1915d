package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TraceContext;
import dev.toolbus.protocol.TurnCompletedEvent;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.exporter.FinishedSpan;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import io.micrometer.tracing.test.simple.TracingAssertions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The turn and call observations seen through the Micrometer tracing test kit ({@link SimpleTracer}
 * and its span assertions): a turn that comes with a bot core's {@code traceparent} is one span of that
 * trace, each call a span under it with {@code gen_ai.tool.name}, {@code outcome}, {@code attempts}
 * and {@code cached}, and every event names the span it belongs to.
 */
class TracingTestKitTest {

    static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    static final String CLIENT_SPAN = "00f067aa0ba902b7";

    /** W3C {@code traceparent} extraction onto the test kit's tracer (the kit brings no propagator). */
    static Propagator w3c(SimpleTracer tracer) {
        return new Propagator() {
            @Override
            public List<String> fields() {
                return List.of("traceparent", "tracestate");
            }

            @Override
            public <C> void inject(io.micrometer.tracing.TraceContext context, C carrier, Setter<C> setter) {
                setter.set(carrier, "traceparent", "00-" + context.traceId() + "-" + context.spanId() + "-01");
            }

            @Override
            public <C> Span.Builder extract(C carrier, Getter<C> getter) {
                TraceContext in = TraceContext.parse(getter.get(carrier, "traceparent"), null);
                if (in == null) {
                    return tracer.spanBuilder();
                }
                return tracer.spanBuilder().setParent(tracer.traceContextBuilder().traceId(in.traceId())
                        .spanId(in.spanId()).sampled(in.sampled()).build());
            }
        };
    }

    static ObservationRegistry registry(SimpleTracer tracer) {
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingReceiverTracingObservationHandler<>(tracer, w3c(tracer)),
                new DefaultTracingObservationHandler(tracer)));
        return registry;
    }

    static List<FinishedSpan> finished(SimpleTracer tracer) {
        return new ArrayList<>(tracer.getSpans());
    }

    static SimpleSpan named(SimpleTracer tracer, String name) {
        return tracer.getSpans().stream().filter(s -> s.getName().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void aTurnAndItsCallsAreSpansOfTheBotCoresTraceWithTheirTags() {
        SimpleTracer tracer = new SimpleTracer();
        TraceContext client = new TraceContext("00-" + TRACE_ID + "-" + CLIENT_SPAN + "-01", "core=1");
        try (ToolExecutor ex = ToolExecutor.builder().observationRegistry(registry(tracer))
                .tool(ToolExecutorTracingTest.add()).build()) {
            ex.execute(new ToolCallsEvent("s1", "t1", List.of(call("c1", "add", "{\"a\":1,\"b\":1}")),
                    CallContext.EMPTY, null, client)).blockLast(Duration.ofSeconds(10));
            // the same call again is answered from the result cache; the unknown tool fails
            List<OutboundEvent> events = ex.execute(new ToolCallsEvent("s1", "t2", List.of(
                    call("c2", "add", "{\"a\":1,\"b\":1}"), call("c3", "nope", "{}")),
                    CallContext.EMPTY, null, client)).collectList().block(Duration.ofSeconds(10));

            TracingAssertions.assertThat(finished(tracer))
                    .haveSameTraceId()
                    .hasNumberOfSpansWithNameEqualTo("toolbus turn", 2)
                    .hasNumberOfSpansWithNameEqualTo("execute_tool add", 2)
                    .hasNumberOfSpansWithNameEqualTo("execute_tool unknown", 1)
                    .forAllSpansWithNameEqualTo("toolbus turn", s -> s.hasTraceIdEqualTo(TRACE_ID)
                            .hasParentIdEqualTo(CLIENT_SPAN).hasKindEqualTo(Span.Kind.CONSUMER).isEnded())
                    .hasASpanWithName("toolbus turn", s -> s.hasTag("turn_id", "t1").hasTag("outcome", "ok"))
                    .hasASpanWithName("toolbus turn", s -> s.hasTag("turn_id", "t2").hasTag("outcome", "error")
                            .hasTag("error_count", "1"))
                    .hasASpanWithName("execute_tool add", s -> s.hasTag("gen_ai.tool.call.id", "c1")
                            .hasTag("gen_ai.tool.name", "add").hasTag("gen_ai.operation.name", "execute_tool")
                            .hasTag("gen_ai.tool.type", "function").hasTag("gen_ai.tool.description", "adds")
                            .doesNotHaveTagWithKey("error.type")
                            .hasTag("outcome", "ok").hasTag("attempts", "1").hasTag("cached", "false"))
                    .hasASpanWithName("execute_tool add", s -> s.hasTag("gen_ai.tool.call.id", "c2")
                            .hasTag("outcome", "ok").hasTag("attempts", "0").hasTag("cached", "true"))
                    .hasASpanWithName("execute_tool unknown", s -> s.hasTag("gen_ai.tool.name", "unknown")
                            .hasTag("outcome", "unknown_tool").hasTag("attempts", "0")
                            .hasTag("error.type", "unknown_tool").thenThrowable().isNotNull());

            SimpleSpan turn2 = tracer.getSpans().stream().filter(s -> "t2".equals(s.getTags().get("turn_id")))
                    .findFirst().orElseThrow();
            SimpleSpan c2 = tracer.getSpans().stream().filter(s -> "c2".equals(s.getTags().get("gen_ai.tool.call.id")))
                    .findFirst().orElseThrow();
            SimpleSpan c3 = named(tracer, "execute_tool unknown");
            TracingAssertions.assertThat(c2).hasParentIdEqualTo(turn2.getSpanId());
            TracingAssertions.assertThat(c3).hasParentIdEqualTo(turn2.getSpanId());

            // each event carries its span: a call's result the call's, turn_completed the turn's
            ToolResultEvent r2 = (ToolResultEvent) events.get(0);
            ToolResultEvent r3 = (ToolResultEvent) events.get(1);
            // (the kit's child spans carry no sampling decision, so the flags are not asserted here)
            assertThat(r2.trace().spanId()).isEqualTo(c2.getSpanId());
            assertThat(r3.trace().spanId()).isEqualTo(c3.getSpanId());
            assertThat(events.get(2)).isInstanceOf(TurnCompletedEvent.class);
            assertThat(events.get(2).trace().spanId()).isEqualTo(turn2.getSpanId());
            assertThat(events).allSatisfy(e -> {
                assertThat(e.trace().traceId()).isEqualTo(TRACE_ID);
                assertThat(e.trace().tracestate()).isEqualTo("core=1");
            });
        }
    }
}
