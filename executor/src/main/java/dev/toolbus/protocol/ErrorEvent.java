package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
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
 * @param trace the W3C trace context of the span this event belongs to, or {@code null}
 */
@JsonPropertyOrder({"type", "stream_id", "turn_id", "code", "message"})
public record ErrorEvent(String streamId, String turnId, ErrorCode code, String message,
        @JsonUnwrapped TraceContext trace) implements OutboundEvent {

    public ErrorEvent {
        Objects.requireNonNull(code, "code");
        message = message == null ? "" : message;
    }

    /** The event without a trace context. */
    public ErrorEvent(String streamId, String turnId, ErrorCode code, String message) {
        this(streamId, turnId, code, message, null);
    }

    /** This event with {@code trace} as its trace context. */
    @Override
    public ErrorEvent withTrace(TraceContext trace) {
        return new ErrorEvent(streamId, turnId, code, message, trace);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "error";
    }
}
