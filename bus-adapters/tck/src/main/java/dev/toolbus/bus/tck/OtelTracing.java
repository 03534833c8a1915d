package dev.toolbus.bus.tck;

import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;

/**
 * The OpenTelemetry SDK behind the Micrometer tracing bridge, wired as Spring Boot wires it (propagating
 * sender and receiver handlers over W3C, then the default handler), with spans kept in memory.
 */
public final class OtelTracing implements AutoCloseable {

    public final InMemorySpanExporter spans = InMemorySpanExporter.create();
    public final ObservationRegistry registry = ObservationRegistry.create();
    private final SdkTracerProvider provider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(spans)).build();

    public OtelTracing() {
        io.opentelemetry.api.trace.Tracer otel = provider.get("toolbus-test");
        OtelCurrentTraceContext current = new OtelCurrentTraceContext();
        OtelTracer tracer = new OtelTracer(otel, current, event -> { },
                new OtelBaggageManager(current, List.of(), List.of()));
        OtelPropagator propagator = new OtelPropagator(
                ContextPropagators.create(W3CTraceContextPropagator.getInstance()), otel);
        registry.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
    }

    /** The finished spans named {@code name}. */
    public List<SpanData> named(String name) {
        return spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
    }

    public List<SpanData> finished() {
        return spans.getFinishedSpanItems();
    }

    @Override
    public void close() {
        provider.close();
    }
}
