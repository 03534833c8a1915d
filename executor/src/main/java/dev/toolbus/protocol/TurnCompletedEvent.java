package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Objects;

/**
 * The last event of a turn ({@code turn_completed}).
 *
 * @param streamId the conversation
 * @param turnId the turn
 * @param toolCallIds the turn's calls, in order
 * @param errorCount how many results were errors
 * @param elapsedMs wall time of the turn
 * @param trace the W3C trace context of the span this event belongs to, or {@code null}
 */
@JsonPropertyOrder({"type", "stream_id", "turn_id", "tool_call_ids", "error_count", "elapsed_ms"})
public record TurnCompletedEvent(String streamId, String turnId, List<String> toolCallIds, int errorCount,
                                 long elapsedMs,
        @JsonUnwrapped TraceContext trace) implements OutboundEvent {

    public TurnCompletedEvent {
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(turnId, "turnId");
        toolCallIds = List.copyOf(toolCallIds);
    }

    /** The event without a trace context. */
    public TurnCompletedEvent(String streamId, String turnId, List<String> toolCallIds, int errorCount,
        long elapsedMs) {
        this(streamId, turnId, toolCallIds, errorCount, elapsedMs, null);
    }

    /** This event with {@code trace} as its trace context. */
    @Override
    public TurnCompletedEvent withTrace(TraceContext trace) {
        return new TurnCompletedEvent(streamId, turnId, toolCallIds, errorCount, elapsedMs, trace);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "turn_completed";
    }
}
