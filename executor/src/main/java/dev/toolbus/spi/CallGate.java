package dev.toolbus.spi;

import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.ErrorInfo;
import reactor.core.publisher.Mono;

/**
 * A step every call passes after its arguments are validated and before it takes a slot (the approval
 * step plugs in here; {@code ToolExecutor.Builder.callGate}). Without a gate calls go straight
 * on. A call waiting at the gate holds no slot; the turn's other calls run meanwhile.
 */
public interface CallGate {

    /**
     * Decides whether a call may run.
     *
     * @return {@code null} to let the call run now; else a Mono that completes empty to let it run, or
     *     with an {@link ErrorInfo} to end the call with that error (e.g. {@code NOT_APPROVED}). The
     *     Mono's subscription is disposed when the call is cancelled meanwhile (it then ends
     *     {@code CANCELLED}).
     */
    Mono<ErrorInfo> admit(GatedCall call);

    /**
     * Every call of the turn has passed {@link #admit} or ended before it (called once per turn, after
     * its calls started, on the thread that started them): a gate that bundles the turn's calls into
     * one request publishes it now.
     */
    default void turnAdmitted(GatedTurn turn) {
    }

    /**
     * An {@code approval_response}. A gate must check that the id belongs to the event's stream.
     *
     * @return {@link ControlOutcome#APPLIED}, or {@link ControlOutcome#UNKNOWN_REQUEST} for an id it does
     *     not wait for (unknown, expired, already answered, or of another stream)
     */
    default ControlOutcome answer(ApprovalResponseEvent response) {
        return ControlOutcome.UNKNOWN_REQUEST;
    }
}
