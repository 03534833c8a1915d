package dev.toolbus.benchmarks;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.TraceContext;
import dev.toolbus.protocol.TurnCompletedEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What tracing costs one idle turn of one call: {@code off} (the NOOP registry, no inbound trace: the
 * default), {@code carried} (the NOOP registry, the turn has a traceparent that its events carry on),
 * and {@code spans} (the OpenTelemetry SDK behind the Micrometer bridge, sampling every span, no
 * exporter).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TracingOverheadBenchmark {

    static final TraceContext CLIENT =
            new TraceContext("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", null);

    @Param({"off", "carried", "spans"})
    public String tracing;

    private ToolExecutor executor;
    private ToolCallsEvent turn;
    private SdkTracerProvider provider;

    @Setup(Level.Trial)
    public void setUp() {
        ObservationRegistry registry = ObservationRegistry.NOOP;
        if (tracing.equals("spans")) {
            provider = SdkTracerProvider.builder().build();
            io.opentelemetry.api.trace.Tracer otel = provider.get("bench");
            OtelCurrentTraceContext current = new OtelCurrentTraceContext();
            OtelTracer tracer = new OtelTracer(otel, current, e -> { },
                    new OtelBaggageManager(current, List.of(), List.of()));
            OtelPropagator propagator = new OtelPropagator(
                    ContextPropagators.create(W3CTraceContextPropagator.getInstance()), otel);
            registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(
                    new ObservationHandler.FirstMatchingCompositeObservationHandler(
                            new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                            new DefaultTracingObservationHandler(tracer)));
        }
        executor = ToolExecutor.builder().tool(ToolbusExecutorBenchmark.echoTool())
                .settings(ExecutionSettings.builder().maxParallel(5).timeout(Workload.TIMEOUT).retryOnError(false)
                        .cacheResults(false).build())
                .meterRegistry(new SimpleMeterRegistry()).observationRegistry(registry).build();
        ToolCallsEvent plain = Workload.turns().get(0);
        turn = tracing.equals("off") ? plain : new ToolCallsEvent(plain.streamId(), plain.turnId(), plain.calls(),
                CallContext.EMPTY, null, CLIENT);
        List<OutboundEvent> events = executor.execute(turn).collectList().block(Duration.ofSeconds(30));
        if (events == null || events.size() != 2 || !(events.get(1) instanceof TurnCompletedEvent t)
                || t.errorCount() != 0 || (events.get(1).trace() == null) != tracing.equals("off")) {
            throw new IllegalStateException("unexpected events: " + events);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (executor != null) {
            executor.closeGracefully().block(Duration.ofSeconds(30));
        }
        if (provider != null) {
            provider.close();
        }
    }

    /** One turn of one call; returns the last event. */
    @Benchmark
    public OutboundEvent turn(Blackhole bh) {
        return executor.execute(turn).doOnNext(bh::consume).blockLast();
    }
}
