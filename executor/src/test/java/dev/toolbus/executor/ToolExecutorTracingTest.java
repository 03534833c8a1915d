package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.ListToolsEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.SendMessageEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TraceContext;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.protocol.UserMessageEvent;
import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

class ToolExecutorTracingTest {

    static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    static final String CLIENT_SPAN = "00f067aa0ba902b7";
    static final TraceContext CLIENT = new TraceContext("00-" + TRACE_ID + "-" + CLIENT_SPAN + "-01", "bot=core");

    static ToolSpec add() {
        return new ToolSpec(ToolDefinition.builder("add").description("adds")
                .parameter(ToolParameter.of("a", ToolParamType.INTEGER, "a"))
                .parameter(ToolParameter.of("b", ToolParamType.INTEGER, "b")).build(),
                (a, c) -> Mono.just(ToolResult.text("sum " + (a.integer("a", 0) + a.integer("b", 0)))));
    }

    static ToolSpec draw() {
        return new ToolSpec(ToolDefinition.builder("draw").description("draws").build(),
                (a, c) -> c.send("drawing").thenReturn(ToolResult.builder().content("drew")
                        .item(ContentItem.image(new byte[] {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10}, "image/png"))
                        .build()));
    }

    static ToolCallsEvent tracedTurn(TraceContext trace, dev.toolbus.protocol.ToolCall... calls) {
        return new ToolCallsEvent("s1", "t1", List.of(calls), CallContext.EMPTY, null, trace);
    }

    static String attr(SpanData s, String key) {
        return s.getAttributes().get(AttributeKey.stringKey(key));
    }

    @Test
    void aTurnWithTheClientsTraceparentRecordsATurnSpanAndOneSpanPerCallInTheClientsTrace() {
        try (OtelTracing tracing = new OtelTracing();
             ToolExecutor ex = ToolExecutor.builder().observationRegistry(tracing.registry)
                     .tool(add()).tool(draw()).build()) {
            List<OutboundEvent> events = ex.execute(tracedTurn(CLIENT,
                    call("c1", "add", "{\"a\":2,\"b\":40}"), call("c2", "draw", "{}"),
                    call("c3", "nope", "{}"))).collectList().block(Duration.ofSeconds(10));

            SpanData turn = tracing.named("toolbus turn").get(0);
            assertThat(tracing.named("toolbus turn")).hasSize(1);
            assertThat(turn.getTraceId()).isEqualTo(TRACE_ID);
            assertThat(turn.getParentSpanId()).isEqualTo(CLIENT_SPAN);
            assertThat(attr(turn, "stream_id")).isEqualTo("s1");
            assertThat(attr(turn, "outcome")).isEqualTo("error");
            assertThat(attr(turn, "error_count")).isEqualTo("1");

            SpanData c1 = tracing.named("execute_tool add").get(0);
            SpanData c2 = tracing.named("execute_tool draw").get(0);
            SpanData c3 = tracing.named("execute_tool unknown").get(0);
            for (SpanData c : List.of(c1, c2, c3)) {
                assertThat(c.getTraceId()).isEqualTo(TRACE_ID);
                assertThat(c.getParentSpanId()).isEqualTo(turn.getSpanId());
            }
            assertThat(attr(c1, "tool")).isEqualTo("add");
            assertThat(attr(c1, "outcome")).isEqualTo("ok");
            assertThat(attr(c1, "cached")).isEqualTo("false");
            assertThat(attr(c1, "attempts")).isEqualTo("1");
            assertThat(attr(c1, "tool_call_id")).isEqualTo("c1");
            assertThat(attr(c3, "tool")).isEqualTo("unknown");
            assertThat(attr(c3, "outcome")).isEqualTo("unknown_tool");
            assertThat(attr(c3, "attempts")).isEqualTo("0");

            // every event carries the span it belongs to: the call's, or the turn's for turn_completed
            for (OutboundEvent e : events) {
                assertThat(e.trace()).as(e.type()).isNotNull();
                assertThat(e.trace().traceId()).isEqualTo(TRACE_ID);
                assertThat(e.trace().tracestate()).isEqualTo("bot=core");
                assertThat(e.trace().sampled()).isTrue();
            }
            assertThat(result(events, "c1").trace().spanId()).isEqualTo(c1.getSpanId());
            assertThat(result(events, "c2").trace().spanId()).isEqualTo(c2.getSpanId());
            assertThat(result(events, "c3").trace().spanId()).isEqualTo(c3.getSpanId());
            UserMessageEvent media = events.stream().filter(UserMessageEvent.class::isInstance)
                    .map(UserMessageEvent.class::cast).findFirst().orElseThrow();
            assertThat(media.trace().spanId()).isEqualTo(c2.getSpanId());
            SendMessageEvent sent = events.stream().filter(SendMessageEvent.class::isInstance)
                    .map(SendMessageEvent.class::cast).findFirst().orElseThrow();
            assertThat(sent.trace().spanId()).isEqualTo(c2.getSpanId());
            OutboundEvent last = events.get(events.size() - 1);
            assertThat(last).isInstanceOf(TurnCompletedEvent.class);
            assertThat(last.trace().spanId()).isEqualTo(turn.getSpanId());
            assertThat(EventCodec.defaults().encode(last))
                    .contains("\"traceparent\":\"00-" + TRACE_ID + "-" + turn.getSpanId() + "-01\"")
                    .contains("\"tracestate\":\"bot=core\"");
        }
    }

    @Test
    void aCachedCallSaysSoAndAHandlerSeesItsCallsObservation() {
        AtomicReference<Object> seen = new AtomicReference<>();
        AtomicReference<TraceContext> given = new AtomicReference<>();
        ToolSpec peek = new ToolSpec(ToolDefinition.builder("peek").description("peeks").build(),
                (a, c) -> Mono.deferContextual(ctx -> {
                    seen.set(ctx.getOrDefault(ObservationThreadLocalAccessor.KEY, null));
                    given.set(c.trace());
                    return Mono.just(ToolResult.text("peeked"));
                }));
        try (OtelTracing tracing = new OtelTracing();
             ToolExecutor ex = ToolExecutor.builder().observationRegistry(tracing.registry)
                     .tool(add()).tool(peek).build()) {
            ex.execute(tracedTurn(CLIENT, call("c1", "add", "{\"a\":1,\"b\":1}"))).blockLast(Duration.ofSeconds(10));
            ex.execute(tracedTurn(CLIENT, call("c2", "add", "{\"a\":1,\"b\":1}"), call("c3", "peek", "{}")))
                    .blockLast(Duration.ofSeconds(10));
            List<SpanData> adds = tracing.named("execute_tool add");
            assertThat(adds).extracting(s -> attr(s, "cached")).containsExactly("false", "true");
            assertThat(adds).extracting(s -> attr(s, "attempts")).containsExactly("1", "0");
            assertThat(seen.get()).isInstanceOf(io.micrometer.observation.Observation.class);
            assertThat(((io.micrometer.observation.Observation) seen.get()).getContext().getName())
                    .isEqualTo("toolbus.call");
            SpanData peekSpan = tracing.named("execute_tool peek").get(0);
            assertThat(given.get().traceId()).isEqualTo(TRACE_ID);
            assertThat(given.get().spanId()).isEqualTo(peekSpan.getSpanId());
        }
    }

    @Test
    void withoutAnObservingRegistryTheInboundTraceContextIsCarriedOntoEveryEvent() {
        try (ToolExecutor ex = ToolExecutor.builder().tool(add()).tool(draw()).build()) {
            List<OutboundEvent> events = ex.execute(tracedTurn(CLIENT, call("c1", "add", "{\"a\":2,\"b\":40}"),
                    call("c2", "draw", "{}"))).collectList().block(Duration.ofSeconds(10));
            assertThat(events).hasSizeGreaterThan(3).allSatisfy(e -> assertThat(e.trace()).isEqualTo(CLIENT));
            AtomicReference<TraceContext> given = new AtomicReference<>();
            ex.registry().register(new ToolSpec(ToolDefinition.builder("look").description("looks").build(),
                    (a, c) -> {
                        given.set(c.trace());
                        return Mono.just(ToolResult.text("looked"));
                    }), dev.toolbus.tool.ToolSource.PLUGIN);
            ex.execute(tracedTurn(CLIENT, call("c9", "look", "{}"))).blockLast(Duration.ofSeconds(10));
            assertThat(given.get()).isEqualTo(CLIENT);

            List<OutboundEvent> plain = ex.execute(tracedTurn(null, call("c1", "add", "{\"a\":2,\"b\":40}")))
                    .collectList().block(Duration.ofSeconds(10));
            assertThat(plain).allSatisfy(e -> assertThat(e.trace()).isNull());
            assertThat(EventCodec.defaults().encode(plain.get(0))).doesNotContain("trace");

            var tools = ex.listTools(new ListToolsEvent("s1", "r1", CallContext.EMPTY, ListToolsEvent.Format.OPENAI,
                    null, CLIENT));
            assertThat(tools.trace()).isEqualTo(CLIENT);
        }
    }

    @Test
    void aTurnWithoutTraceparentStartsItsOwnTraceWhenObserved() {
        try (OtelTracing tracing = new OtelTracing();
             ToolExecutor ex = ToolExecutor.builder().observationRegistry(tracing.registry).tool(add()).build()) {
            List<OutboundEvent> events = ex.execute(tracedTurn(null, call("c1", "add", "{\"a\":2,\"b\":40}")))
                    .collectList().block(Duration.ofSeconds(10));
            SpanData turn = tracing.named("toolbus turn").get(0);
            assertThat(turn.getParentSpanContext().isValid()).isFalse();
            assertThat(tracing.named("execute_tool add").get(0).getParentSpanId()).isEqualTo(turn.getSpanId());
            assertThat(events).allSatisfy(e -> assertThat(e.trace().traceId()).isEqualTo(turn.getTraceId()));
        }
    }

    @Test
    void anExecuteSubscriberInAnObservationParentsATurnThatCameWithoutTraceparent() {
        try (OtelTracing tracing = new OtelTracing();
             ToolExecutor ex = ToolExecutor.builder().observationRegistry(tracing.registry).tool(add()).build()) {
            io.micrometer.observation.Observation outer =
                    io.micrometer.observation.Observation.start("app.request", tracing.registry);
            List<OutboundEvent> events = ex.execute(tracedTurn(null, call("c1", "add", "{\"a\":2,\"b\":40}")))
                    .contextWrite(c -> c.put(ObservationThreadLocalAccessor.KEY, outer))
                    .collectList().block(Duration.ofSeconds(10));
            outer.stop();
            SpanData app = tracing.named("app.request").get(0);
            SpanData turn = tracing.named("toolbus turn").get(0);
            assertThat(turn.getTraceId()).isEqualTo(app.getTraceId());
            assertThat(turn.getParentSpanId()).isEqualTo(app.getSpanId());
            assertThat(events).allSatisfy(e -> assertThat(e.trace().traceId()).isEqualTo(app.getTraceId()));

            // an explicit traceparent wins over the subscriber's observation
            io.micrometer.observation.Observation other =
                    io.micrometer.observation.Observation.start("app.other", tracing.registry);
            ex.execute(tracedTurn(CLIENT, call("c2", "add", "{\"a\":2,\"b\":40}")))
                    .contextWrite(c -> c.put(ObservationThreadLocalAccessor.KEY, other))
                    .blockLast(Duration.ofSeconds(10));
            other.stop();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> tracing.named("toolbus turn").size() == 2);
            assertThat(tracing.named("toolbus turn").get(1).getParentSpanId()).isEqualTo(CLIENT_SPAN);
        }
    }

    @Test
    void aTurnOnABusIsTracedAndItsPublishedEventsCarryTheSpans() throws Exception {
        InMemoryBus bus = InMemoryBus.create();
        try (OtelTracing tracing = new OtelTracing();
             ToolExecutor ex = ToolExecutor.builder().observationRegistry(tracing.registry).tool(add()).build()) {
            var collected = bus.events().take(2).collectList().toFuture();
            ex.attach(bus);
            String line = "{\"type\":\"tool_call\",\"stream_id\":\"s9\",\"turn_id\":\"t9\",\"tool_call_id\":\"c1\","
                    + "\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2},\"traceparent\":\"" + CLIENT.traceparent()
                    + "\"}";
            bus.send(line);
            List<OutboundEvent> out = collected.get(10, java.util.concurrent.TimeUnit.SECONDS);
            SpanData turn = tracing.named("toolbus turn").get(0);
            assertThat(turn.getParentSpanId()).isEqualTo(CLIENT_SPAN);
            assertThat(out.get(0).trace().spanId()).isEqualTo(tracing.named("execute_tool add").get(0).getSpanId());
            assertThat(out.get(1).trace().spanId()).isEqualTo(turn.getSpanId());
        }
    }

    @Test
    void cancellingTheSubscriptionEndsTheOpenSpans() {
        ToolSpec hang = TestTools.hang(new java.util.concurrent.atomic.AtomicInteger(),
                new java.util.concurrent.atomic.AtomicInteger());
        try (OtelTracing tracing = new OtelTracing();
             ToolExecutor ex = ToolExecutor.builder().observationRegistry(tracing.registry).tool(hang).build()) {
            ex.execute(tracedTurn(CLIENT, call("c1", "hang", "{}"))).take(Duration.ofMillis(200))
                    .blockLast(Duration.ofSeconds(10));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> tracing.named("toolbus turn").size() == 1);
            assertThat(attr(tracing.named("toolbus turn").get(0), "outcome")).isEqualTo("abandoned");
            assertThat(attr(tracing.named("execute_tool hang").get(0), "outcome")).isEqualTo("cancelled");
        }
    }

    @Test
    void aCancelThatArrivesWhileTheTurnStartsItsTracingStillEndsItsSpansAndRunsNoCall() throws Exception {
        java.util.concurrent.CountDownLatch starting = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        List<String> stopped = new java.util.concurrent.CopyOnWriteArrayList<>();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new io.micrometer.observation.ObservationHandler<>() {
            @Override
            public boolean supportsContext(io.micrometer.observation.Observation.Context context) {
                return true;
            }

            @Override
            public void onStart(io.micrometer.observation.Observation.Context context) {
                if (context.getName().equals("toolbus.turn")) {
                    // a slow first start (class loading under load): the cancel arrives meanwhile
                    starting.countDown();
                    try {
                        release.await(10, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }

            @Override
            public void onStop(io.micrometer.observation.Observation.Context context) {
                stopped.add(context.getName() + ":" + context.getLowCardinalityKeyValue("outcome").getValue());
            }
        });
        java.util.concurrent.atomic.AtomicInteger started = new java.util.concurrent.atomic.AtomicInteger();
        ToolSpec hang = TestTools.hang(started, new java.util.concurrent.atomic.AtomicInteger());
        try (ToolExecutor ex = ToolExecutor.builder().observationRegistry(registry).tool(hang).build()) {
            java.util.concurrent.atomic.AtomicReference<org.reactivestreams.Subscription> subscription =
                    new java.util.concurrent.atomic.AtomicReference<>();
            Thread subscriber = new Thread(() -> ex.execute(tracedTurn(CLIENT, call("c1", "hang", "{}")))
                    .subscribe(new reactor.core.publisher.BaseSubscriber<OutboundEvent>() {
                        @Override
                        protected void hookOnSubscribe(org.reactivestreams.Subscription s) {
                            subscription.set(s);
                            s.request(Long.MAX_VALUE);
                        }
                    }));
            subscriber.start();
            assertThat(starting.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            subscription.get().cancel();
            release.countDown();
            subscriber.join(10_000);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> stopped.contains("toolbus.turn:abandoned"));
            assertThat(stopped).containsExactlyInAnyOrder("toolbus.call:cancelled", "toolbus.turn:abandoned");
            assertThat(started).as("the call never ran").hasValue(0);
            assertThat(ex.health().activeTurns()).isZero();
        }
    }

    @Test
    void anObservationHandlerThatThrowsNeverFailsATurn() {
        for (boolean onStart : new boolean[] {true, false}) {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(new io.micrometer.observation.ObservationHandler<>() {
                @Override
                public boolean supportsContext(io.micrometer.observation.Observation.Context context) {
                    return true;
                }

                @Override
                public void onStart(io.micrometer.observation.Observation.Context context) {
                    if (onStart) {
                        throw new IllegalStateException("handler broken on start");
                    }
                }

                @Override
                public void onStop(io.micrometer.observation.Observation.Context context) {
                    throw new OutOfMemoryError("handler broken on stop");
                }
            });
            try (ToolExecutor ex = ToolExecutor.builder().observationRegistry(registry).tool(add()).build()) {
                for (int i = 0; i < 2; i++) {
                    List<OutboundEvent> events = ex.execute(tracedTurn(CLIENT, call("c1", "add", "{\"a\":2,\"b\":40}")))
                            .collectList().block(Duration.ofSeconds(10));
                    assertThat(events).hasSize(2);
                    assertThat(TestTools.results(events).get(0).isError()).isFalse();
                    assertThat(events).allSatisfy(e -> assertThat(e.trace()).isEqualTo(CLIENT));
                }
            }
        }
    }

    @Test
    void theNoopRegistryIsTheDefault() {
        try (ToolExecutor ex = ToolExecutor.builder().build()) {
            assertThat(TestEngines.engine(ex).traced()).as("turns observed").isFalse();
        }
        ObservationRegistry observing = ObservationRegistry.create();
        observing.observationConfig().observationHandler(context -> true);
        try (ToolExecutor ex = ToolExecutor.builder().observationRegistry(observing).build()) {
            assertThat(TestEngines.engine(ex).traced()).as("turns observed").isTrue();
        }
    }

    private static ToolResultEvent result(List<OutboundEvent> events, String id) {
        return TestTools.results(events).stream().filter(r -> r.toolCallId().equals(id)).findFirst().orElseThrow();
    }
}
