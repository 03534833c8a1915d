package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.List;
import java.util.Objects;

/**
 * A message a running tool posts to the chat ({@code send_message}); the bot sends it to the platform now. Not part
 * of the model's context (unlike media {@code user_message}s). Immutable; built with {@link #builder()}.
 */
@JsonPropertyOrder({"type", "stream_id", "turn_id", "tool_call_id", "message_id", "content"})
public final class SendMessageEvent implements OutboundEvent {

    private final String streamId;
    private final String turnId;
    private final String toolCallId;
    private final String messageId;
    private final List<ContentPart> content;
    private final TraceContext trace;

    private SendMessageEvent(Builder b) {
        String streamId = b.streamId;
        String turnId = b.turnId;
        String toolCallId = b.toolCallId;
        String messageId = b.messageId;
        List<ContentPart> content = b.content;
        TraceContext trace = b.trace;
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(turnId, "turnId");
        Objects.requireNonNull(toolCallId, "toolCallId");
        Objects.requireNonNull(messageId, "messageId");
        content = List.copyOf(content);
        this.streamId = streamId;
        this.turnId = turnId;
        this.toolCallId = toolCallId;
        this.messageId = messageId;
        this.content = content;
        this.trace = trace;
    }

    private SendMessageEvent(SendMessageEvent e, TraceContext trace) {
        this.streamId = e.streamId;
        this.turnId = e.turnId;
        this.toolCallId = e.toolCallId;
        this.messageId = e.messageId;
        this.content = e.content;
        this.trace = trace;
    }

    /** An event read from the wire. */
    @JsonCreator
    private static SendMessageEvent fromWire(@JsonProperty("stream_id") String streamId,
                                             @JsonProperty("turn_id") String turnId,
                                             @JsonProperty("tool_call_id") String toolCallId,
                                             @JsonProperty("message_id") String messageId,
                                             @JsonProperty("content") List<ContentPart> content,
                                             @JsonUnwrapped TraceContext trace) {
        return builder().streamId(streamId).turnId(turnId).toolCallId(toolCallId).messageId(messageId)
                .content(content).trace(trace).build();
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
        b.messageId = messageId;
        b.content = content;
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

    /** The call that sent it. */
    @JsonProperty
    public String toolCallId() {
        return toolCallId;
    }

    /**
     * {@code <tool_call_id>:msg:<n>}, n counting from 1 per call (stable across a redelivery; see
     * {@link #messageId(String, int)}).
     */
    @JsonProperty
    public String messageId() {
        return messageId;
    }

    /** The parts (text, image, any content part). */
    @JsonProperty
    public List<ContentPart> content() {
        return content;
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
    public SendMessageEvent withTrace(TraceContext trace) {
        return new SendMessageEvent(this, trace);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "send_message";
    }

    /** The message id of the {@code n}-th message of a call. */
    public static String messageId(String toolCallId, int n) {
        return toolCallId + ":msg:" + n;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SendMessageEvent e && streamId.equals(e.streamId) && turnId.equals(e.turnId)
                && toolCallId.equals(e.toolCallId) && messageId.equals(e.messageId) && content.equals(e.content)
                && Objects.equals(trace, e.trace);
    }

    @Override
    public int hashCode() {
        return Objects.hash(streamId, turnId, toolCallId, messageId, content, trace);
    }

    @Override
    public String toString() {
        return "SendMessageEvent[streamId=" + streamId + ", turnId=" + turnId + ", toolCallId=" + toolCallId
                + ", messageId=" + messageId + ", content=" + content + ", trace=" + trace + "]";
    }

    /**
     * Builder of {@link SendMessageEvent}; the four ids and {@code content} are required.
     */
    public static final class Builder {
        private String streamId;
        private String turnId;
        private String toolCallId;
        private String messageId;
        private List<ContentPart> content;
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

        /** The call that sent it. */
        public Builder toolCallId(String toolCallId) {
            this.toolCallId = toolCallId;
            return this;
        }

        /**
         * {@code <tool_call_id>:msg:<n>}, n counting from 1 per call (stable across a redelivery; see
         * {@link #messageId(String, int)}).
         */
        public Builder messageId(String messageId) {
            this.messageId = messageId;
            return this;
        }

        /** The parts (text, image, any content part). */
        public Builder content(List<ContentPart> content) {
            this.content = content;
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
         * @throws NullPointerException when an id or {@code content} is missing
         */
        public SendMessageEvent build() {
            return new SendMessageEvent(this);
        }
    }
}
