package dev.toolbus.spi;

import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.ControlEvent;
import dev.toolbus.protocol.InputResponseEvent;
import java.util.Objects;

/**
 * An answer to an approval request or a question, as the turn state records it: who answered (set by
 * the ingress, like a turn's principal), the {@code approval_response} or {@code input_response} itself,
 * and for an approval the one call it answers when it names one. Immutable.
 */
public final class ControlAnswer {

    private final Principal principal;
    private final ControlEvent response;
    private final String toolCallId;

    private ControlAnswer(Principal principal, ControlEvent response, String toolCallId) {
        this.principal = principal;
        this.response = response;
        this.toolCallId = toolCallId;
    }

    /**
     * An answer to an approval request.
     *
     * @param toolCallId the one call of the request it answers, or {@code null} for every call not
     *     answered yet
     */
    public static ControlAnswer approval(Principal principal, ApprovalResponseEvent response, String toolCallId) {
        return new ControlAnswer(Objects.requireNonNull(principal, "principal"),
                Objects.requireNonNull(response, "response"), toolCallId);
    }

    /** An answer to a question. */
    public static ControlAnswer input(Principal principal, InputResponseEvent response) {
        return new ControlAnswer(Objects.requireNonNull(principal, "principal"),
                Objects.requireNonNull(response, "response"), null);
    }

    /** Who answered. */
    public Principal principal() {
        return principal;
    }

    /** The {@code approval_response} or {@code input_response}. */
    public ControlEvent response() {
        return response;
    }

    /** The id it answers ({@code approval_id} or {@code input_id}). */
    public String requestId() {
        return response instanceof ApprovalResponseEvent a ? a.approvalId() : ((InputResponseEvent) response).inputId();
    }

    /** The stream it was sent on. */
    public String streamId() {
        return response.streamId();
    }

    /** Whether it answers an approval request. */
    public boolean isApproval() {
        return response instanceof ApprovalResponseEvent;
    }

    /** The one call it answers, or {@code null}: every call of the request not answered yet. */
    public String toolCallId() {
        return toolCallId;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ControlAnswer a && principal.equals(a.principal) && response.equals(a.response)
                && Objects.equals(toolCallId, a.toolCallId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(principal, response, toolCallId);
    }

    @Override
    public String toString() {
        return "ControlAnswer[" + requestId() + " by " + principal.key() + (toolCallId == null ? "" : " for " + toolCallId)
                + "]";
    }
}
