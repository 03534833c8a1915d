package dev.toolbus.executor.internal;

import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.ControlEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.TraceContext;
import dev.toolbus.spi.ControlOutcome;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The observation of one control event ({@value #NAME}, span {@code toolbus <type>}): a receiver whose
 * carrier is the event's {@code traceparent}/{@code tracestate}, so a propagating tracing handler makes it
 * a child of the caller's span (the bot core's cancel, the UI's approval or answer); without one, a child
 * of the observation the {@code control()} subscriber runs in, else a new trace. Low-cardinality
 * {@code type} ({@code cancel}, {@code approval_response}, {@code input_response}), {@code outcome}
 * ({@code applied}, {@code nothing_to_do}, {@code unknown_request}) and, for an answer, {@code decision}
 * or {@code action}; high-cardinality {@code stream_id} and the ids the event names.
 */
final class ControlObservation {

    static final String NAME = "toolbus.control";

    private ControlObservation() {
    }

    /**
     * Routes {@code event} inside its observation; an observation handler that throws never stops the
     * routing (it then runs unobserved).
     */
    static reactor.core.publisher.Mono<ControlOutcome> observe(ControlEvent event, ObservationRegistry registry,
                                                               Observation parent,
                                                               Supplier<reactor.core.publisher.Mono<ControlOutcome>> route) {
        Observation obs;
        try {
            obs = observation(event, registry, parent).start();
        } catch (Throwable t) {
            TurnTracing.failed(t);
            return route.get();
        }
        reactor.core.publisher.Mono<ControlOutcome> routed;
        try (Observation.Scope ignored = scope(obs)) {
            routed = route.get();
        } catch (RuntimeException | Error e) {
            TurnTracing.guard(() -> obs.error(e).stop());
            throw e;
        }
        // the routing may go on after this returns (the turn state records an answer): the span ends with it
        return routed
                .doOnNext(outcome -> TurnTracing.guard(() ->
                        obs.lowCardinalityKeyValue("outcome", outcome.name().toLowerCase(Locale.ROOT))))
                .doOnError(e -> TurnTracing.guard(() -> obs.error(e)))
                .doFinally(signal -> TurnTracing.guard(obs::stop))
                .contextWrite(c -> c.put(io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor.KEY, obs));
    }

    private static Observation.Scope scope(Observation obs) {
        try {
            return obs.openScope();
        } catch (Throwable t) {
            TurnTracing.failed(t);
            return Observation.Scope.NOOP;
        }
    }

    static Observation observation(ControlEvent event, ObservationRegistry registry, Observation parent) {
        TraceContext in = event.trace();
        Observation obs;
        if (in == null && parent != null) {
            obs = Observation.createNotStarted(NAME, registry).parentObservation(parent);
        } else {
            Map<String, String> carrier = in == null ? Map.of()
                    : in.tracestate() == null ? Map.of("traceparent", in.traceparent())
                    : Map.of("traceparent", in.traceparent(), "tracestate", in.tracestate());
            ReceiverContext<Map<String, String>> ctx = new ReceiverContext<>(Map::get, Kind.CONSUMER);
            ctx.setCarrier(carrier);
            ctx.setRemoteServiceName("bot-core");
            obs = Observation.createNotStarted(NAME, () -> ctx, registry);
        }
        String type = type(event);
        obs.contextualName("toolbus " + type).lowCardinalityKeyValue("type", type)
                .highCardinalityKeyValue("stream_id", event.streamId());
        if (event instanceof CancelEvent c) {
            if (c.turnId() != null) {
                obs.highCardinalityKeyValue("turn_id", c.turnId());
            }
            if (c.toolCallId() != null) {
                obs.highCardinalityKeyValue("tool_call_id", c.toolCallId());
            }
        } else if (event instanceof ApprovalResponseEvent a) {
            obs.highCardinalityKeyValue("approval_id", a.approvalId())
                    .lowCardinalityKeyValue("decision", a.decision().wireName());
        } else if (event instanceof InputResponseEvent i) {
            obs.highCardinalityKeyValue("input_id", i.inputId())
                    .lowCardinalityKeyValue("action", i.action().wireName());
        }
        return obs;
    }

    static String type(ControlEvent event) {
        if (event instanceof CancelEvent) {
            return "cancel";
        }
        return event instanceof ApprovalResponseEvent ? "approval_response" : "input_response";
    }
}
