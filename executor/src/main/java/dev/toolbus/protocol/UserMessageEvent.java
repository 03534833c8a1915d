package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.List;
import java.util.Objects;

/**
 * A follow-up user message carrying one media item of a tool result ({@code user_message}),
 * published after all tool results of the turn.
 *
 * @param streamId the conversation
 * @param turnId the turn
 * @param messageId the media index, {@code tool_result:<tool_call_id>:<n>}
 * @param toolCallId the call that produced the item
 * @param source always {@code tool_result_media}
 * @param content the header text part, then the image part for images
 * @param visibleText a plain-text rendering for histories and monitors
 * @param item the tool's media item this message describes, as a part of the item's type, for in-process
 *     consumers such as the MCP server (which returns audio and embedded resources as real MCP content);
 *     never on the wire, and {@code null} on decoded events
 * @param trace the W3C trace context of the span this event belongs to, or {@code null}
 */
@JsonPropertyOrder({"type", "stream_id", "turn_id", "message_id", "tool_call_id", "source", "content", "visible_text"})
public record UserMessageEvent(
        String streamId,
        String turnId,
        String messageId,
        String toolCallId,
        String source,
        List<ContentPart> content,
        String visibleText,
        @JsonIgnore ContentPart item,
        @JsonUnwrapped TraceContext trace) implements OutboundEvent {

    /** The {@code source} of media follow-ups. */
    public static final String TOOL_RESULT_MEDIA = "tool_result_media";

    public UserMessageEvent {
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(turnId, "turnId");
        Objects.requireNonNull(messageId, "messageId");
        Objects.requireNonNull(toolCallId, "toolCallId");
        source = source == null ? TOOL_RESULT_MEDIA : source;
        content = List.copyOf(content);
        visibleText = visibleText == null ? "" : visibleText;
    }

    /** The event without a trace context. */
    public UserMessageEvent(String streamId, String turnId, String messageId, String toolCallId, String source,
        List<ContentPart> content, String visibleText, ContentPart item) {
        this(streamId, turnId, messageId, toolCallId, source, content, visibleText, item, null);
    }

    /** This event with {@code trace} as its trace context. */
    @Override
    public UserMessageEvent withTrace(TraceContext trace) {
        return new UserMessageEvent(streamId, turnId, messageId, toolCallId, source, content, visibleText, item, trace);
    }

    /** A message without the in-process {@link #item()}. */
    public UserMessageEvent(String streamId, String turnId, String messageId, String toolCallId, String source,
                            List<ContentPart> content, String visibleText) {
        this(streamId, turnId, messageId, toolCallId, source, content, visibleText, null);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "user_message";
    }
}
