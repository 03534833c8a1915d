package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Objects;

/**
 * A message a running tool posts to the chat ({@code send_message}); the bot sends it to the platform
 * now. Not part of the model's context (unlike media {@code user_message}s).
 *
 * @param streamId the conversation
 * @param turnId the turn
 * @param toolCallId the call that sent it
 * @param messageId {@code <tool_call_id>:msg:<n>}, n counting from 1 per call (stable across a redelivery)
 * @param content the parts (text, image, any content part)
 * @param trace the W3C trace context of the span this event belongs to, or {@code null}
 */
@JsonPropertyOrder({"type", "stream_id", "turn_id", "tool_call_id", "message_id", "content"})
public record SendMessageEvent(String streamId, String turnId, String toolCallId, String messageId,
                               List<ContentPart> content,
        @JsonUnwrapped TraceContext trace) implements OutboundEvent {

    public SendMessageEvent {
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(turnId, "turnId");
        Objects.requireNonNull(toolCallId, "toolCallId");
        Objects.requireNonNull(messageId, "messageId");
        content = List.copyOf(content);
    }

    /** The event without a trace context. */
    public SendMessageEvent(String streamId, String turnId, String toolCallId, String messageId,
        List<ContentPart> content) {
        this(streamId, turnId, toolCallId, messageId, content, null);
    }

    /** This event with {@code trace} as its trace context. */
    @Override
    public SendMessageEvent withTrace(TraceContext trace) {
        return new SendMessageEvent(streamId, turnId, toolCallId, messageId, content, trace);
    }

    /** The message id of the {@code n}-th message of a call. */
    public static String messageId(String toolCallId, int n) {
        return toolCallId + ":msg:" + n;
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "send_message";
    }
}
