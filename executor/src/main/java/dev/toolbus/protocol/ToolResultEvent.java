package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The result of one call ({@code tool_result}), published in call order.
 *
 * @param streamId the conversation
 * @param turnId the turn
 * @param toolCallId the call
 * @param name the tool name as called
 * @param content the text the model reads (with the media list block when there is media)
 * @param isError whether the call failed
 * @param error code and message when failed, else {@code null}
 * @param data structured result, or {@code null}
 * @param metadata tool metadata, or empty
 * @param media media index entries, or empty
 * @param attempts how many times the handler ran (0 when it never ran)
 * @param cached whether the result came from the cache
 * @param elapsedMs wall time of the call
 * @param trace the W3C trace context of the span this event belongs to, or {@code null}
 */
@JsonPropertyOrder({"type", "stream_id", "turn_id", "tool_call_id", "name", "content", "is_error", "error", "data",
        "metadata", "media", "attempts", "cached", "elapsed_ms"})
public record ToolResultEvent(
        String streamId,
        String turnId,
        String toolCallId,
        String name,
        String content,
        @JsonProperty("is_error") boolean isError,
        ErrorInfo error,
        Object data,
        Map<String, Object> metadata,
        List<MediaRef> media,
        int attempts,
        boolean cached,
        long elapsedMs,
        @JsonUnwrapped TraceContext trace) implements OutboundEvent {

    public ToolResultEvent {
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(turnId, "turnId");
        Objects.requireNonNull(toolCallId, "toolCallId");
        name = name == null ? "" : name;
        content = content == null ? "" : content;
        metadata = metadata == null ? Map.of() : metadata;
        media = media == null ? List.of() : List.copyOf(media);
        if (isError && error == null) {
            throw new IllegalArgumentException("an error result needs an error");
        }
    }

    /** The event without a trace context. */
    public ToolResultEvent(String streamId, String turnId, String toolCallId, String name, String content,
        boolean isError, ErrorInfo error, Object data, Map<String, Object> metadata, List<MediaRef> media, int attempts,
        boolean cached, long elapsedMs) {
        this(streamId, turnId, toolCallId, name, content, isError, error, data, metadata, media, attempts, cached,
            elapsedMs, null);
    }

    /** This event with {@code trace} as its trace context. */
    @Override
    public ToolResultEvent withTrace(TraceContext trace) {
        return new ToolResultEvent(streamId, turnId, toolCallId, name, content, isError, error, data, metadata, media,
                attempts, cached, elapsedMs, trace);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "tool_result";
    }
}
