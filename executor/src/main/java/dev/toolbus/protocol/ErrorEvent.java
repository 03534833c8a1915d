package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Objects;

/**
 * An event-level error ({@code error}), for input that is not a valid event. Failures of single calls
 * are {@link ToolResultEvent}s instead.
 *
 * @param streamId the conversation, or {@code null} when none could be read
 * @param turnId the turn, or {@code null}
 * @param code the code (usually {@link ErrorCode#BAD_EVENT})
 * @param message what was wrong
 */
@JsonPropertyOrder({"type", "stream_id", "turn_id", "code", "message"})
public record ErrorEvent(String streamId, String turnId, ErrorCode code, String message) implements OutboundEvent {

    public ErrorEvent {
        Objects.requireNonNull(code, "code");
        message = message == null ? "" : message;
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "error";
    }
}
