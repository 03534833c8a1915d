package dev.toolbus.protocol;

import java.util.Objects;

/**
 * A human's answer to an {@code approval_request} ({@code approval_response}).
 *
 * @param streamId the conversation (must be the stream of the request)
 * @param approvalId the request's {@code approval_id}
 * @param decision approve, deny or approve for the session
 * @param trace the W3C trace context of the answering side's span, or {@code null}
 */
public record ApprovalResponseEvent(String streamId, String approvalId, ApprovalDecision decision,
                                    TraceContext trace) implements ControlEvent {

    public ApprovalResponseEvent {
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(approvalId, "approvalId");
        Objects.requireNonNull(decision, "decision");
    }

    /** An answer without a trace context. */
    public ApprovalResponseEvent(String streamId, String approvalId, ApprovalDecision decision) {
        this(streamId, approvalId, decision, null);
    }

    /** This answer with {@code trace} as its trace context. */
    public ApprovalResponseEvent withTrace(TraceContext trace) {
        return new ApprovalResponseEvent(streamId, approvalId, decision, trace);
    }
}
