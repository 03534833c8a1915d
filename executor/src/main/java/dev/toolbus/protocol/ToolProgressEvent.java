package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.Objects;

/**
 * Progress of a running call ({@code tool_progress}), published as it happens (rate-limited per call),
 * before the call's {@code tool_result}.
 *
 * @param streamId the conversation
 * @param turnId the turn
 * @param toolCallId the call
 * @param name the tool
 * @param progress how far the call is (grows; in units of {@code total} when given)
 * @param total the amount of work, or {@code null} when unknown
 * @param message a short text for the user, or {@code null}
 * @param trace the W3C trace context of the span this event belongs to, or {@code null}
 */
@JsonPropertyOrder({"type", "stream_id", "turn_id", "tool_call_id", "name", "progress", "total", "message"})
public record ToolProgressEvent(String streamId, String turnId, String toolCallId, String name,
                                @JsonSerialize(using = WholeNumberSerializer.class) double progress,
                                @JsonSerialize(using = WholeNumberSerializer.class) Double total,
                                String message,
        @JsonUnwrapped TraceContext trace) implements OutboundEvent {

    public ToolProgressEvent {
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
    }

    /** The event without a trace context. */
    public ToolProgressEvent(String streamId, String turnId, String toolCallId, String name, double progress,
        Double total, String message) {
        this(streamId, turnId, toolCallId, name, progress, total, message, null);
    }

    /** This event with {@code trace} as its trace context. */
    @Override
    public ToolProgressEvent withTrace(TraceContext trace) {
        return new ToolProgressEvent(streamId, turnId, toolCallId, name, progress, total, message, trace);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "tool_progress";
    }
}
