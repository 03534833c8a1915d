package dev.toolbus.executor.internal;

import dev.toolbus.protocol.ControlEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.TraceContext;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.text.DescriptionLocale;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.TracingObservationHandler;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Tracing of an executor's turns: a {@link TurnObservation} per turn when the registry observes or the
 * turn carries a trace context, else nothing (a plain call then pays one null check). While observing,
 * each call's {@code gen_ai.execute_tool.duration} is recorded as its span ends.
 */
final class TurnTracing {

    static final TurnTracing OFF = new TurnTracing(ObservationRegistry.NOOP, null, System::nanoTime,
            DescriptionLocale.EN);

    private final ObservationRegistry registry;
    private final boolean observing;
    /** {@code gen_ai.execute_tool.duration}, recorded as an observed call ends; {@code null} when off. */
    final GenAiMeters meters;
    final LongSupplier nanoClock;
    /** The locale of the tool descriptions the spans carry (the ones the model reads). */
    final DescriptionLocale locale;

    TurnTracing(ObservationRegistry registry, GenAiMeters meters, LongSupplier nanoClock, DescriptionLocale locale) {
        this.registry = registry;
        this.observing = !registry.isNoop();
        this.meters = meters;
        this.nanoClock = nanoClock;
        this.locale = locale;
    }

    /**
     * The turn's observation, started; {@code null} when there is nothing to observe or to propagate.
     * When an observation handler throws, the turn goes on untraced (its events carry the inbound context).
     */
    TurnObservation start(ToolCallsEvent turn, Object parent) {
        if (!observing) {
            return turn.trace() == null ? null : new TurnObservation(turn, null, turn.trace(), this);
        }
        Observation obs;
        try {
            obs = TurnObservation.observation(turn, registry, parent instanceof Observation p ? p : null).start();
        } catch (Throwable t) {
            failed(t);
            return turn.trace() == null ? null : new TurnObservation(turn, null, turn.trace(), this);
        }
        return new TurnObservation(turn, obs, outbound(obs, turn.trace()), this);
    }

    /** A child observation of {@code parent} for one call (started), or {@code null} when not observing or it failed. */
    Observation call(Observation parent, String tool, String type, String description, String toolCallId) {
        if (parent == null) {
            return null;
        }
        try {
            return CallObservation.observation(tool, type, description, toolCallId, registry)
                    .parentObservation(parent).start();
        } catch (Throwable t) {
            failed(t);
            return null;
        }
    }

    /**
     * Routes a control event inside its observation ({@link ControlObservation}); {@code parent} is the
     * observation the {@code control()} subscriber runs in, or {@code null}.
     */
    reactor.core.publisher.Mono<ControlOutcome> control(ControlEvent event, Object parent,
                                                        Supplier<reactor.core.publisher.Mono<ControlOutcome>> route) {
        if (!observing) {
            return route.get();
        }
        return ControlObservation.observe(event, registry, parent instanceof Observation p ? p : null, route);
    }

    /** Runs an observation's stop (after recording its outcome); a handler that throws is logged, once. */
    static void guard(Runnable action) {
        try {
            action.run();
        } catch (Throwable t) {
            failed(t);
        }
    }

    /** An observation handler threw: tracing must never fail a turn. Logged once per process. */
    static void failed(Throwable t) {
        if (WARNED.compareAndSet(false, true)) {
            LOG.warn("an observation handler failed; turns go on, and this is logged only once", t);
        } else {
            LOG.debug("an observation handler failed", t);
        }
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(TurnTracing.class);
    private static final java.util.concurrent.atomic.AtomicBoolean WARNED = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * The trace context an observation's events carry: its span as a W3C {@code traceparent} (the
     * {@code tracestate} passed on from the inbound event), or the inbound context when no tracer
     * recorded a span.
     */
    static TraceContext outbound(Observation obs, TraceContext inbound) {
        if (obs == null) {
            return inbound;
        }
        try {
            return spanContext(obs, inbound);
        } catch (Throwable t) {
            failed(t);
            return inbound;
        }
    }

    private static TraceContext spanContext(Observation obs, TraceContext inbound) {
        TracingObservationHandler.TracingContext tc = obs.getContext().get(TracingObservationHandler.TracingContext.class);
        io.micrometer.tracing.Span span = tc == null ? null : tc.getSpan();
        if (span == null || span.isNoop()) {
            return inbound;
        }
        io.micrometer.tracing.TraceContext c = span.context();
        String traceId = c.traceId();
        String spanId = c.spanId();
        if (traceId.length() == 16) {
            traceId = "0000000000000000" + traceId;
        }
        String flags = Boolean.TRUE.equals(c.sampled()) ? "01" : "00";
        TraceContext out = TraceContext.parse("00-" + traceId + "-" + spanId + "-" + flags,
                inbound == null ? null : inbound.tracestate());
        // the inbound baggage goes on with the span (never on the bus: it is not encoded)
        return out != null ? (inbound == null ? out : out.withBaggage(inbound.baggage())) : inbound;
    }
}
