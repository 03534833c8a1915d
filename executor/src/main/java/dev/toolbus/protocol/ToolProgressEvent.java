package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.Objects;

/**
 * Progress of a running call ({@code tool_progress}), published as it happens (rate-limited per call), before the
 * call's {@code tool_result}. Immutable; built with {@link #builder()}.
 */
@JsonPropertyOrder({"type", "stream_id", "turn_id", "tool_call_id", "name", "progress", "total", "message"})
public final class ToolProgressEvent implements OutboundEvent {

    private final String streamId;
    private final String turnId;
    private final String toolCallId;
    private final String name;
    private final double progress;
    private final Double total;
    private final String message;
    private final TraceContext trace;

    private ToolProgressEvent(Builder b) {
        String streamId = b.streamId;
        String turnId = b.turnId;
        String toolCallId = b.toolCallId;
        String name = b.name;
        double progress = b.progress;
        Double total = b.total;
        String message = b.message;
        TraceContext trace = b.trace;
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(turnId, "turnId");
        Objects.requireNonNull(toolCallId, "toolCallId");
        name = name == null ? "" : name;
        if (Double.isNaN(progress) || Double.isInfinite(progress)) {
            throw new IllegalArgumentException("progress must be a finite number, got " + progress);
        }
        if (total != null && (total.isNaN() || total.isInfinite())) {
            throw new IllegalArgumentException("total must be a finite number, got " + total);
        }
        this.streamId = streamId;
        this.turnId = turnId;
        this.toolCallId = toolCallId;
        this.name = name;
        this.progress = progress;
        this.total = total;
        this.message = message;
        this.trace = trace;
    }

    private ToolProgressEvent(ToolProgressEvent e, TraceContext trace) {
        this.streamId = e.streamId;
        this.turnId = e.turnId;
        this.toolCallId = e.toolCallId;
        this.name = e.name;
        this.progress = e.progress;
        this.total = e.total;
        this.message = e.message;
        this.trace = trace;
    }

    /** An event read from the wire. */
    @JsonCreator
    private static ToolProgressEvent fromWire(@JsonProperty("stream_id") String streamId,
                                              @JsonProperty("turn_id") String turnId,
                                              @JsonProperty("tool_call_id") String toolCallId,
                                              @JsonProperty("name") String name,
                                              @JsonProperty("progress") double progress,
                                              @JsonProperty("total") Double total,
                                              @JsonProperty("message") String message,
                                              @JsonUnwrapped TraceContext trace) {
        return builder().streamId(streamId).turnId(turnId).toolCallId(toolCallId).name(name).progress(progress)
                .total(total).message(message).trace(trace).build();
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
        b.toolCallId = toolCallId;
        b.name = name;
        b.progress = progress;
        b.total = total;
        b.message = message;
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

    /** The call. */
    @JsonProperty
    public String toolCallId() {
        return toolCallId;
    }

    /** The tool (may be empty, never {@code null}). */
    @JsonProperty
    public String name() {
        return name;
    }

    /** How far the call is (grows; in units of {@code total} when given). */
    @JsonProperty
    @JsonSerialize(using = WholeNumberSerializer.class)
    public double progress() {
        return progress;
    }

    /** The amount of work, or {@code null} when unknown. */
    @JsonProperty
    @JsonSerialize(using = WholeNumberSerializer.class)
    public Double total() {
        return total;
    }

    /** A short text for the user, or {@code null}. */
    @JsonProperty
    public String message() {
        return message;
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
    public ToolProgressEvent withTrace(TraceContext trace) {
        return new ToolProgressEvent(this, trace);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "tool_progress";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ToolProgressEvent e && streamId.equals(e.streamId) && turnId.equals(e.turnId)
                && toolCallId.equals(e.toolCallId) && name.equals(e.name) && Double.compare(progress, e.progress) == 0
                && Objects.equals(total, e.total) && Objects.equals(message, e.message)
                && Objects.equals(trace, e.trace);
    }

    @Override
    public int hashCode() {
        return Objects.hash(streamId, turnId, toolCallId, name, progress, total, message, trace);
    }

    @Override
    public String toString() {
        return "ToolProgressEvent[streamId=" + streamId + ", turnId=" + turnId + ", toolCallId=" + toolCallId
                + ", name=" + name + ", progress=" + progress + ", total=" + total + ", message=" + message
                + ", trace=" + trace + "]";
    }

    /**
     * Builder of {@link ToolProgressEvent}; the three ids are required, {@code progress} and {@code total} must
     * be finite.
     */
    public static final class Builder {
        private String streamId;
        private String turnId;
        private String toolCallId;
        private String name;
        private double progress;
        private Double total;
        private String message;
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

        /** The call. */
        public Builder toolCallId(String toolCallId) {
            this.toolCallId = toolCallId;
            return this;
        }

        /** The tool ({@code null}: empty). */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /** How far the call is (grows; in units of {@code total} when given); finite. */
        public Builder progress(double progress) {
            this.progress = progress;
            return this;
        }

        /** The amount of work ({@code null}: unknown); finite. */
        public Builder total(Double total) {
            this.total = total;
            return this;
        }

        /** A short text for the user, or {@code null}. */
        public Builder message(String message) {
            this.message = message;
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
         * @throws NullPointerException when an id is missing
         * @throws IllegalArgumentException when {@code progress} or {@code total} is NaN or infinite
         */
        public ToolProgressEvent build() {
            return new ToolProgressEvent(this);
        }
    }
}
