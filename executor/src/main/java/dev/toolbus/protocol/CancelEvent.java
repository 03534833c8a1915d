package dev.toolbus.protocol;

import java.util.Objects;

/**
 * Stops unfinished calls ({@code cancel}): one call, every unfinished call of a turn, or every queued or running
 * turn of the stream. Cancelled calls end as {@code CANCELLED} results in call order. Immutable; built with
 * {@link #ofStream}, {@link #ofTurn} or {@link #builder()}:
 * <pre>{@code
 * CancelEvent everything = CancelEvent.ofStream("qq:group:123");
 * CancelEvent oneCall = CancelEvent.builder().streamId("qq:group:123").turnId("msg-42").toolCallId("call_1")
 *         .reason("the user pressed stop").build();
 * }</pre>
 */
public final class CancelEvent implements ControlEvent {

    private final String streamId;
    private final String turnId;
    private final String toolCallId;
    private final String reason;

    private CancelEvent(Builder b) {
        String streamId = b.streamId;
        String turnId = b.turnId;
        String toolCallId = b.toolCallId;
        String reason = b.reason;
        Objects.requireNonNull(streamId, "streamId");
        if (toolCallId != null && turnId == null) {
            throw new IllegalArgumentException("a cancel naming a tool_call_id needs its turn_id");
        }
        reason = reason == null ? "" : reason;
        this.streamId = streamId;
        this.turnId = turnId;
        this.toolCallId = toolCallId;
        this.reason = reason;
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
        b.reason = reason;
        return b;
    }

    /**
     * Cancels every queued or running turn of a stream.
     *
     * @param streamId the conversation
     */
    public static CancelEvent ofStream(String streamId) {
        return builder().streamId(streamId).build();
    }

    /**
     * Cancels every unfinished call of one turn.
     *
     * @param streamId the conversation
     * @param turnId the turn
     */
    public static CancelEvent ofTurn(String streamId, String turnId) {
        return builder().streamId(streamId).turnId(Objects.requireNonNull(turnId, "turnId")).build();
    }

    /** The conversation. */
    @Override
    public String streamId() {
        return streamId;
    }

    /** The turn, or {@code null} for every turn of the stream. */
    public String turnId() {
        return turnId;
    }

    /** The call, or {@code null} for every unfinished call of the turn. */
    public String toolCallId() {
        return toolCallId;
    }

    /** Why, for logs (may be empty, never {@code null}). */
    public String reason() {
        return reason;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CancelEvent e && streamId.equals(e.streamId) && Objects.equals(turnId, e.turnId)
                && Objects.equals(toolCallId, e.toolCallId) && reason.equals(e.reason);
    }

    @Override
    public int hashCode() {
        return Objects.hash(streamId, turnId, toolCallId, reason);
    }

    @Override
    public String toString() {
        return "CancelEvent[streamId=" + streamId + ", turnId=" + turnId + ", toolCallId=" + toolCallId + ", reason="
                + reason + "]";
    }

    /**
     * Builder of {@link CancelEvent}; {@code streamId} is required, a {@code toolCallId} needs a {@code turnId}.
     */
    public static final class Builder {
        private String streamId;
        private String turnId;
        private String toolCallId;
        private String reason;

        private Builder() {
        }

        /** The conversation. */
        public Builder streamId(String streamId) {
            this.streamId = streamId;
            return this;
        }

        /** The turn, or {@code null} for every turn of the stream. */
        public Builder turnId(String turnId) {
            this.turnId = turnId;
            return this;
        }

        /** The call ({@code null}: every unfinished call of the turn; needs a turn id). */
        public Builder toolCallId(String toolCallId) {
            this.toolCallId = toolCallId;
            return this;
        }

        /** Why, for logs ({@code null}: empty). */
        public Builder reason(String reason) {
            this.reason = reason;
            return this;
        }

        /**
         * The event.
         *
         * @throws NullPointerException when {@code streamId} is missing
         * @throws IllegalArgumentException when a {@code toolCallId} is given without a {@code turnId}
         */
        public CancelEvent build() {
            return new CancelEvent(this);
        }
    }
}
