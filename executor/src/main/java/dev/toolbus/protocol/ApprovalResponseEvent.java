package dev.toolbus.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * A human's answer to an {@code approval_request} ({@code approval_response}).
 *
 * <p>An answer may name one call of the request ({@code tool_call_id}): it then answers that call only,
 * and the request's other calls wait for their own answers; without one it answers every call not
 * answered yet. An {@code approve} may carry edited {@code arguments} for the call it names (or the
 * request's only call): they are validated against the tool's schema and the policy decides again, and
 * the result says the arguments were edited. A {@code deny} may carry a {@code message} (at most
 * {@link #MAX_MESSAGE_CHARS} characters): what the model reads as the reason.
 *
 * @param streamId the conversation (must be the stream of the request)
 * @param approvalId the request's {@code approval_id}
 * @param decision approve, deny or approve for the session
 * @param toolCallId the one call it answers, or {@code null} for every call not answered yet
 * @param arguments the user's edit of the call's arguments (an object; {@code approve} or
 *     {@code approve_session} only), or {@code null}
 * @param message why the user denied (a {@code deny} only), or {@code null}
 * @param trace the W3C trace context of the answering side's span, or {@code null}
 */
public record ApprovalResponseEvent(String streamId, String approvalId, ApprovalDecision decision, String toolCallId,
                                    JsonNode arguments, String message, TraceContext trace) implements ControlEvent {

    /** The longest {@code message} of a {@code deny}, in characters. */
    public static final int MAX_MESSAGE_CHARS = 2_000;

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException when {@code arguments} is not an object or comes with a deny, or
     *     {@code message} comes with an approval or is too long
     */
    public ApprovalResponseEvent {
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(approvalId, "approvalId");
        Objects.requireNonNull(decision, "decision");
        if (arguments != null && arguments.isNull()) {
            arguments = null;
        }
        if (arguments != null && (!arguments.isObject() || decision == ApprovalDecision.DENY)) {
            throw new IllegalArgumentException("approval_response.arguments must be an object, sent with approve or "
                    + "approve_session");
        }
        if (message != null && (decision != ApprovalDecision.DENY || message.length() > MAX_MESSAGE_CHARS)) {
            throw new IllegalArgumentException("approval_response.message goes with deny only, at most "
                    + MAX_MESSAGE_CHARS + " characters");
        }
    }

    /** An answer to every call of the request, without edits, message or trace context. */
    public ApprovalResponseEvent(String streamId, String approvalId, ApprovalDecision decision) {
        this(streamId, approvalId, decision, null, null, null, null);
    }

    /** An answer to every call of the request, without edits or message. */
    public ApprovalResponseEvent(String streamId, String approvalId, ApprovalDecision decision, TraceContext trace) {
        this(streamId, approvalId, decision, null, null, null, trace);
    }

    /** An answer without a trace context. */
    public ApprovalResponseEvent(String streamId, String approvalId, ApprovalDecision decision, String toolCallId,
                                 JsonNode arguments, String message) {
        this(streamId, approvalId, decision, toolCallId, arguments, message, null);
    }

    /** This answer with {@code trace} as its trace context. */
    public ApprovalResponseEvent withTrace(TraceContext trace) {
        return new ApprovalResponseEvent(streamId, approvalId, decision, toolCallId, arguments, message, trace);
    }
}
