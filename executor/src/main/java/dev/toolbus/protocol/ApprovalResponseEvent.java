package dev.toolbus.protocol;

import java.util.Objects;

/**
 * A human's answer to an {@code approval_request} ({@code approval_response}).
 *
 * @param streamId the conversation (must be the stream of the request)
 * @param approvalId the request's {@code approval_id}
 * @param decision approve, deny or approve for the session
 */
public record ApprovalResponseEvent(String streamId, String approvalId, ApprovalDecision decision)
        implements ControlEvent {

    public ApprovalResponseEvent {
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(approvalId, "approvalId");
        Objects.requireNonNull(decision, "decision");
    }
}
