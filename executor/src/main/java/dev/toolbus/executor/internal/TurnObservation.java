package dev.toolbus.executor.internal;

import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.SendMessageEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolProgressEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TraceContext;
import dev.toolbus.protocol.UserMessageEvent;
import dev.toolbus.registry.ToolRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;
import reactor.core.publisher.Mono;

/**
 * The tracing of one turn: its observation ({@value #NAME}, a receiver whose carrier is the inbound
 * {@code traceparent}/{@code tracestate}, so a propagating tracing handler makes it a child of the bot
 * core's span), one {@link CallObservation} per call under it, and the trace context each outbound event
 * carries: the call's for the events of a call, the turn's for the others. Without an observing
 * registry there are no observations and every event carries the inbound context.
 *
 * <p>Observations start and stop outside the turn's lock (their handlers are the application's code).
 */
final class TurnObservation {

    static final String NAME = "toolbus.turn";
    private static final String UNKNOWN_TOOL = "unknown";

    private final ToolCallsEvent turn;
    private final Observation obs;
    private final TraceContext turnTrace;
    private final AtomicReferenceArray<Observation> callObs;
    private final TraceContext[] callTrace;
    private final AtomicBoolean stopped = new AtomicBoolean();

    TurnObservation(ToolCallsEvent turn, Observation obs, TraceContext turnTrace) {
        this.turn = turn;
        this.obs = obs;
        this.turnTrace = turnTrace;
        int n = turn.calls().size();
        this.callObs = obs == null ? null : new AtomicReferenceArray<>(n);
        this.callTrace = obs == null ? null : new TraceContext[n];
    }

    /**
     * The turn's observation, not started: a receiver of the inbound trace context, or, for a turn that
     * came without one and has a {@code parent} (the observation its {@code execute()} subscriber runs
     * in), a plain child of that parent.
     */
    static Observation observation(ToolCallsEvent turn, ObservationRegistry registry, Observation parent) {
        TraceContext in = turn.trace();
        if (in == null && parent != null) {
            return keys(Observation.createNotStarted(NAME, registry).parentObservation(parent), turn);
        }
        Map<String, String> carrier = in == null ? Map.of()
                : in.tracestate() == null ? Map.of("traceparent", in.traceparent())
                : Map.of("traceparent", in.traceparent(), "tracestate", in.tracestate());
        ReceiverContext<Map<String, String>> ctx = new ReceiverContext<>(Map::get, Kind.CONSUMER);
        ctx.setCarrier(carrier);
        ctx.setRemoteServiceName("bot-core");
        return keys(Observation.createNotStarted(NAME, () -> ctx, registry), turn);
    }

    private static Observation keys(Observation obs, ToolCallsEvent turn) {
        return obs.contextualName("toolbus turn")
                .highCardinalityKeyValue("stream_id", turn.streamId())
                .highCardinalityKeyValue("turn_id", turn.turnId())
                .highCardinalityKeyValue("calls", Integer.toString(turn.calls().size()));
    }

    /** Starts the call observations (before the calls start, holding no lock). */
    void startCalls(TurnTracing tracing, ToolRegistry registry) {
        if (obs == null) {
            return;
        }
        var calls = turn.calls();
        for (int i = 0; i < calls.size(); i++) {
            ToolCall c = calls.get(i);
            String tool = !c.name().isEmpty() && registry.find(c.name()) != null ? c.name() : UNKNOWN_TOOL;
            Observation o = tracing.call(obs, tool, c.toolCallId());
            callTrace[i] = TurnTracing.outbound(o, turnTrace);
            if (o != null) {
                callObs.set(i, o);
            }
        }
    }

    /** The call's result arrived: stops its observation (holding no lock); idempotent. */
    void callEnded(int index, ToolResultEvent result) {
        if (obs == null) {
            return;
        }
        Observation o = callObs.getAndSet(index, null);
        if (o != null) {
            TurnTracing.guard(() -> CallObservation.stop(o, result));
        }
    }

    /** The handler Mono of call {@code index} with the call's observation in its Reactor context. */
    <T> Mono<T> inScope(int index, Mono<T> handler) {
        if (obs == null) {
            return handler;
        }
        Observation o = callObs.get(index);
        return o == null ? handler
                : handler.contextWrite(c -> c.put(io.micrometer.observation.contextpropagation
                        .ObservationThreadLocalAccessor.KEY, o));
    }

    /** Stops the turn's observation and any call still open (they never delivered); idempotent. */
    void stop(int errors, boolean abandoned) {
        if (obs == null || !stopped.compareAndSet(false, true)) {
            return;
        }
        for (int i = 0; i < callObs.length(); i++) {
            Observation o = callObs.getAndSet(i, null);
            if (o != null) {
                TurnTracing.guard(() -> CallObservation.abandon(o));
            }
        }
        TurnTracing.guard(() -> obs.lowCardinalityKeyValue("outcome",
                        abandoned ? "abandoned" : errors == 0 ? "ok" : "error")
                .highCardinalityKeyValue("error_count", Integer.toString(errors)).stop());
    }

    /** The event with the trace context of its call (by index), or of the turn. */
    ToolResultEvent stamp(int index, ToolResultEvent e) {
        TraceContext t = trace(index);
        return t == null ? e : e.withTrace(t);
    }

    /** A turn event with the trace context of its call, or of the turn. */
    OutboundEvent stamp(OutboundEvent e) {
        TraceContext t = trace(indexOf(callId(e)));
        return t == null ? e : e.withTrace(t);
    }

    /** The trace context of call {@code index}'s events: its span's, else the turn's. */
    TraceContext trace(int index) {
        if (callTrace == null || index < 0) {
            return turnTrace;
        }
        TraceContext t = callTrace[index];
        return t != null ? t : turnTrace;
    }

    private int indexOf(String toolCallId) {
        if (toolCallId == null) {
            return -1;
        }
        var calls = turn.calls();
        for (int i = 0; i < calls.size(); i++) {
            if (calls.get(i).toolCallId().equals(toolCallId)) {
                return i;
            }
        }
        return -1;
    }

    private static String callId(OutboundEvent e) {
        if (e instanceof ToolResultEvent r) {
            return r.toolCallId();
        }
        if (e instanceof UserMessageEvent m) {
            return m.toolCallId();
        }
        if (e instanceof ToolProgressEvent p) {
            return p.toolCallId();
        }
        if (e instanceof SendMessageEvent s) {
            return s.toolCallId();
        }
        if (e instanceof InputRequestEvent i) {
            return i.toolCallId();
        }
        return null;
    }
}
