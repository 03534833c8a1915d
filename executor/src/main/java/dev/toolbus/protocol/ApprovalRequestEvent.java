package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.List;
import java.util.Objects;

/**
 * The calls of a turn that wait for a human yes ({@code approval_request}), bundled in one request
 * per turn; answered with an {@code approval_response} naming {@code approval_id}.
 *
 * @param streamId the conversation
 * @param turnId the turn
 * @param approvalId {@code ap-<instance>-<n>}
 * @param expiresAtMs when the request expires (epoch ms); the calls then end {@code NOT_APPROVED}
 * @param calls the waiting calls
 * @param text the prompt to show, in the configured locale
 * @param trace the W3C trace context of the span this event belongs to, or {@code null}
 */
@JsonPropertyOrder({"type", "stream_id", "turn_id", "approval_id", "expires_at_ms", "calls", "text"})
public record ApprovalRequestEvent(String streamId, String turnId, String approvalId, long expiresAtMs,
                                   List<Call> calls, String text,
        @JsonUnwrapped TraceContext trace) implements OutboundEvent {

    public ApprovalRequestEvent {
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(turnId, "turnId");
        Objects.requireNonNull(approvalId, "approvalId");
        calls = List.copyOf(calls);
        text = text == null ? "" : text;
    }

    /** The event without a trace context. */
    public ApprovalRequestEvent(String streamId, String turnId, String approvalId, long expiresAtMs, List<Call> calls,
        String text) {
        this(streamId, turnId, approvalId, expiresAtMs, calls, text, null);
    }

    /** This event with {@code trace} as its trace context. */
    @Override
    public ApprovalRequestEvent withTrace(TraceContext trace) {
        return new ApprovalRequestEvent(streamId, turnId, approvalId, expiresAtMs, calls, text, trace);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "approval_request";
    }

    /**
     * One waiting call.
     *
     * @param toolCallId the call
     * @param name the tool
     * @param risk its risk
     * @param argumentsSummary its arguments, redacted and bounded
     */
    @JsonPropertyOrder({"tool_call_id", "name", "risk", "arguments_summary"})
    public record Call(String toolCallId, String name, Risk risk, String argumentsSummary) {

        public Call {
            Objects.requireNonNull(toolCallId, "toolCallId");
            Objects.requireNonNull(risk, "risk");
            name = name == null ? "" : name;
            argumentsSummary = argumentsSummary == null ? "" : argumentsSummary;
        }
    }
}
