package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.List;
import java.util.Objects;

/**
 * The calls of a turn that wait for a human yes ({@code approval_request}), bundled in one request per turn;
 * answered with an {@code approval_response} naming {@code approval_id}. Immutable; built with {@link #builder()}.
 */
@JsonPropertyOrder({"type", "stream_id", "turn_id", "approval_id", "expires_at_ms", "calls", "text"})
public final class ApprovalRequestEvent implements OutboundEvent {

    private final String streamId;
    private final String turnId;
    private final String approvalId;
    private final long expiresAtMs;
    private final List<Call> calls;
    private final String text;
    private final TraceContext trace;

    private ApprovalRequestEvent(Builder b) {
        String streamId = b.streamId;
        String turnId = b.turnId;
        String approvalId = b.approvalId;
        long expiresAtMs = b.expiresAtMs;
        List<Call> calls = b.calls;
        String text = b.text;
        TraceContext trace = b.trace;
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(turnId, "turnId");
        Objects.requireNonNull(approvalId, "approvalId");
        calls = List.copyOf(calls);
        text = text == null ? "" : text;
        this.streamId = streamId;
        this.turnId = turnId;
        this.approvalId = approvalId;
        this.expiresAtMs = expiresAtMs;
        this.calls = calls;
        this.text = text;
        this.trace = trace;
    }

    private ApprovalRequestEvent(ApprovalRequestEvent e, TraceContext trace) {
        this.streamId = e.streamId;
        this.turnId = e.turnId;
        this.approvalId = e.approvalId;
        this.expiresAtMs = e.expiresAtMs;
        this.calls = e.calls;
        this.text = e.text;
        this.trace = trace;
    }

    /** An event read from the wire. */
    @JsonCreator
    private static ApprovalRequestEvent fromWire(@JsonProperty("stream_id") String streamId,
                                                 @JsonProperty("turn_id") String turnId,
                                                 @JsonProperty("approval_id") String approvalId,
                                                 @JsonProperty("expires_at_ms") long expiresAtMs,
                                                 @JsonProperty("calls") List<Call> calls,
                                                 @JsonProperty("text") String text,
                                                 @JsonUnwrapped TraceContext trace) {
        return builder().streamId(streamId).turnId(turnId).approvalId(approvalId).expiresAtMs(expiresAtMs)
                .calls(calls).text(text).trace(trace).build();
    }

    /** Starts a builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this event's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.streamId = streamId;
        b.turnId = turnId;
        b.approvalId = approvalId;
        b.expiresAtMs = expiresAtMs;
        b.calls = calls;
        b.text = text;
        b.trace = trace;
        return b;
    }

    /** The conversation. */
    @JsonProperty
    @Override
    public String streamId() {
        return streamId;
    }

    /** The turn. */
    @JsonProperty
    public String turnId() {
        return turnId;
    }

    /** {@code ap-<instance>-<n>}. */
    @JsonProperty
    public String approvalId() {
        return approvalId;
    }

    /** When the request expires (epoch ms); the calls then end {@code NOT_APPROVED}. */
    @JsonProperty
    public long expiresAtMs() {
        return expiresAtMs;
    }

    /** The waiting calls. */
    @JsonProperty
    public List<Call> calls() {
        return calls;
    }

    /** The prompt to show, in the configured locale (may be empty, never {@code null}). */
    @JsonProperty
    public String text() {
        return text;
    }

    /** The W3C trace context of the span this event belongs to, or {@code null}. */
    @Override
    @JsonProperty
    @JsonUnwrapped
    public TraceContext trace() {
        return trace;
    }

    /** This event with {@code trace} as its trace context. */
    @Override
    public ApprovalRequestEvent withTrace(TraceContext trace) {
        return new ApprovalRequestEvent(this, trace);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "approval_request";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ApprovalRequestEvent e && streamId.equals(e.streamId) && turnId.equals(e.turnId)
                && approvalId.equals(e.approvalId) && expiresAtMs == e.expiresAtMs && calls.equals(e.calls)
                && text.equals(e.text) && Objects.equals(trace, e.trace);
    }

    @Override
    public int hashCode() {
        return Objects.hash(streamId, turnId, approvalId, expiresAtMs, calls, text, trace);
    }

    @Override
    public String toString() {
        return "ApprovalRequestEvent[streamId=" + streamId + ", turnId=" + turnId + ", approvalId=" + approvalId
                + ", expiresAtMs=" + expiresAtMs + ", calls=" + calls + ", text=" + text + ", trace=" + trace + "]";
    }

    /**
     * Builder of {@link ApprovalRequestEvent}; the three ids and {@code calls} are required.
     */
    public static final class Builder {
        private String streamId;
        private String turnId;
        private String approvalId;
        private long expiresAtMs;
        private List<Call> calls;
        private String text;
        private TraceContext trace;

        private Builder() {
        }

        /** The conversation. */
        public Builder streamId(String streamId) {
            this.streamId = streamId;
            return this;
        }

        /** The turn. */
        public Builder turnId(String turnId) {
            this.turnId = turnId;
            return this;
        }

        /** {@code ap-<instance>-<n>}. */
        public Builder approvalId(String approvalId) {
            this.approvalId = approvalId;
            return this;
        }

        /** When the request expires (epoch ms); the calls then end {@code NOT_APPROVED}. */
        public Builder expiresAtMs(long expiresAtMs) {
            this.expiresAtMs = expiresAtMs;
            return this;
        }

        /** The waiting calls. */
        public Builder calls(List<Call> calls) {
            this.calls = calls;
            return this;
        }

        /** The prompt to show, in the configured locale ({@code null}: empty). */
        public Builder text(String text) {
            this.text = text;
            return this;
        }

        /** The W3C trace context of the span this event belongs to ({@code null}: none). */
        public Builder trace(TraceContext trace) {
            this.trace = trace;
            return this;
        }

        /**
         * The event.
         *
         * @throws NullPointerException when an id or {@code calls} is missing
         */
        public ApprovalRequestEvent build() {
            return new ApprovalRequestEvent(this);
        }
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
