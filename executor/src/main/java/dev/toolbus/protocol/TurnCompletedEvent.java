package dev.toolbus.protocol;

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
 */
@JsonPropertyOrder({"type", "stream_id", "turn_id", "tool_call_ids", "error_count", "elapsed_ms"})
public record TurnCompletedEvent(String streamId, String turnId, List<String> toolCallIds, int errorCount,
                                 long elapsedMs) implements OutboundEvent {

    public TurnCompletedEvent {
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(turnId, "turnId");
        toolCallIds = List.copyOf(toolCallIds);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "turn_completed";
    }
}
