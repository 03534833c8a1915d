package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.List;
import java.util.Objects;

/**
 * A follow-up user message carrying one media item of a tool result ({@code user_message}), published after all tool
 * results of the turn. Immutable; built with {@link #builder()}.
 */
@JsonPropertyOrder({"type", "stream_id", "turn_id", "message_id", "tool_call_id", "source", "content", "visible_text"})
public final class UserMessageEvent implements OutboundEvent {

    /** The {@code source} of media follow-ups. */
    public static final String TOOL_RESULT_MEDIA = "tool_result_media";

    private final String streamId;
    private final String turnId;
    private final String messageId;
    private final String toolCallId;
    private final String source;
    private final List<ContentPart> content;
    private final String visibleText;
    private final ContentPart item;
    private final TraceContext trace;

    private UserMessageEvent(Builder b) {
        String streamId = b.streamId;
        String turnId = b.turnId;
        String messageId = b.messageId;
        String toolCallId = b.toolCallId;
        String source = b.source;
        List<ContentPart> content = b.content;
        String visibleText = b.visibleText;
        ContentPart item = b.item;
        TraceContext trace = b.trace;
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(turnId, "turnId");
        Objects.requireNonNull(messageId, "messageId");
        Objects.requireNonNull(toolCallId, "toolCallId");
        source = source == null ? TOOL_RESULT_MEDIA : source;
        content = List.copyOf(content);
        visibleText = visibleText == null ? "" : visibleText;
        this.streamId = streamId;
        this.turnId = turnId;
        this.messageId = messageId;
        this.toolCallId = toolCallId;
        this.source = source;
        this.content = content;
        this.visibleText = visibleText;
        this.item = item;
        this.trace = trace;
    }

    private UserMessageEvent(UserMessageEvent e, TraceContext trace) {
        this.streamId = e.streamId;
        this.turnId = e.turnId;
        this.messageId = e.messageId;
        this.toolCallId = e.toolCallId;
        this.source = e.source;
        this.content = e.content;
        this.visibleText = e.visibleText;
        this.item = e.item;
        this.trace = trace;
    }

    /** A message read from the wire (no in-process item). */
    @JsonCreator
    private static UserMessageEvent fromWire(@JsonProperty("stream_id") String streamId,
                                             @JsonProperty("turn_id") String turnId,
                                             @JsonProperty("message_id") String messageId,
                                             @JsonProperty("tool_call_id") String toolCallId,
                                             @JsonProperty("source") String source,
                                             @JsonProperty("content") List<ContentPart> content,
                                             @JsonProperty("visible_text") String visibleText,
                                             @JsonUnwrapped TraceContext trace) {
        return builder().streamId(streamId).turnId(turnId).messageId(messageId).toolCallId(toolCallId).source(source)
                .content(content).visibleText(visibleText).trace(trace).build();
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
        b.messageId = messageId;
        b.toolCallId = toolCallId;
        b.source = source;
        b.content = content;
        b.visibleText = visibleText;
        b.item = item;
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

    /** The media index, {@code tool_result:<tool_call_id>:<n>}. */
    @JsonProperty
    public String messageId() {
        return messageId;
    }

    /** The call that produced the item. */
    @JsonProperty
    public String toolCallId() {
        return toolCallId;
    }

    /** Always {@link #TOOL_RESULT_MEDIA}. */
    @JsonProperty
    public String source() {
        return source;
    }

    /** The header text part, then the image part for images. */
    @JsonProperty
    public List<ContentPart> content() {
        return content;
    }

    /** A plain-text rendering for histories and monitors (may be empty, never {@code null}). */
    @JsonProperty
    public String visibleText() {
        return visibleText;
    }

    /**
     * The tool's media item this message describes, as a part of the item's type, for in-process consumers such
     * as the MCP server (which returns audio and embedded resources as real MCP content); never on the wire, and
     * {@code null} on decoded events.
     */
    public ContentPart item() {
        return item;
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
    public UserMessageEvent withTrace(TraceContext trace) {
        return new UserMessageEvent(this, trace);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "user_message";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UserMessageEvent e && streamId.equals(e.streamId) && turnId.equals(e.turnId)
                && messageId.equals(e.messageId) && toolCallId.equals(e.toolCallId) && source.equals(e.source)
                && content.equals(e.content) && visibleText.equals(e.visibleText) && Objects.equals(item, e.item)
                && Objects.equals(trace, e.trace);
    }

    @Override
    public int hashCode() {
        return Objects.hash(streamId, turnId, messageId, toolCallId, source, content, visibleText, item, trace);
    }

    @Override
    public String toString() {
        return "UserMessageEvent[streamId=" + streamId + ", turnId=" + turnId + ", messageId=" + messageId
                + ", toolCallId=" + toolCallId + ", source=" + source + ", content=" + content + ", visibleText="
                + visibleText + ", item=" + item + ", trace=" + trace + "]";
    }

    /**
     * Builder of {@link UserMessageEvent}; the four ids and {@code content} are required.
     */
    public static final class Builder {
        private String streamId;
        private String turnId;
        private String messageId;
        private String toolCallId;
        private String source;
        private List<ContentPart> content;
        private String visibleText;
        private ContentPart item;
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

        /** The media index, {@code tool_result:<tool_call_id>:<n>}. */
        public Builder messageId(String messageId) {
            this.messageId = messageId;
            return this;
        }

        /** The call that produced the item. */
        public Builder toolCallId(String toolCallId) {
            this.toolCallId = toolCallId;
            return this;
        }

        /** The source ({@code null}: {@link #TOOL_RESULT_MEDIA}). */
        public Builder source(String source) {
            this.source = source;
            return this;
        }

        /** The header text part, then the image part for images. */
        public Builder content(List<ContentPart> content) {
            this.content = content;
            return this;
        }

        /** A plain-text rendering for histories and monitors ({@code null}: empty). */
        public Builder visibleText(String visibleText) {
            this.visibleText = visibleText;
            return this;
        }

        /** The tool's media item this message describes, for in-process consumers (never written on the wire). */
        public Builder item(ContentPart item) {
            this.item = item;
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
        public UserMessageEvent build() {
            return new UserMessageEvent(this);
        }
    }
}
