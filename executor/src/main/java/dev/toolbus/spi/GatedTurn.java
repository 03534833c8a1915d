package dev.toolbus.spi;

import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/** The turn of a call at the {@link CallGate} (compare by identity). */
public interface GatedTurn {

    /** The turn as it arrived. */
    ToolCallsEvent event();

    /** The executor's instance id (diagnostics; request ids no longer name it). */
    String instanceId();

    /** Who sent the turn (set by the ingress); {@link Principal#local()} by default. */
    default Principal principal() {
        return Principal.local();
    }

    /**
     * The turn state the turn's calls use (the bus's facets, else the executor's): where a gate keeps its
     * requests and grants so that another instance finds them. {@code null} by default.
     */
    default TurnState turnState() {
        return null;
    }

    /** The executor's timer (virtual in tests); {@code now(MILLISECONDS)} is the epoch-ms clock. */
    Scheduler timer();

    /**
     * Publishes an event of the turn now, before its results (e.g. {@code approval_request}).
     *
     * @return completes when published; fails when the turn's bound of pending events is reached
     */
    Mono<Void> publish(OutboundEvent event);

    /**
     * The key the per-principal bounds count under (questions, and turns waiting for approval): the
     * {@link Principal#key() key} of a {@link Principal.Kind#TOKEN token} principal ({@code token:<scope>}).
     * {@code null} for a bus's or the process's own identity, which every turn of that ingress shares: a
     * per-principal bound would only be a second, smaller total there, so such turns count under the
     * per-stream and total bounds alone.
     */
    default String principalId() {
        Principal p = principal();
        return p.kind() == Principal.Kind.TOKEN ? p.key() : null;
    }
}
