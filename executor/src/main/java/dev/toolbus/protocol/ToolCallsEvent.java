package dev.toolbus.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;

/**
 * The tool calls of one assistant turn ({@code tool_calls}; {@code tool_call} is a turn of one).
 *
 * @param streamId the conversation, not blank
 * @param turnId the turn (generated when the bot core sends none)
 * @param calls the calls, in the model's order
 * @param context who and where
 * @param message the triggering message, passed to tools untouched, or {@code null}
 * @param trace the bot core's W3C trace context, or {@code null}
 */
public record ToolCallsEvent(String streamId, String turnId, List<ToolCall> calls, CallContext context,
                             JsonNode message, TraceContext trace) implements InboundEvent {

    public ToolCallsEvent {
        Objects.requireNonNull(streamId, "streamId");
        if (streamId.isBlank()) {
            throw new IllegalArgumentException("stream_id must not be blank");
        }
        Objects.requireNonNull(turnId, "turnId");
        calls = List.copyOf(calls);
        context = context == null ? CallContext.EMPTY : context;
    }

    /** A turn without a trace context. */
    public ToolCallsEvent(String streamId, String turnId, List<ToolCall> calls, CallContext context,
                          JsonNode message) {
        this(streamId, turnId, calls, context, message, null);
    }

    /** This turn with {@code trace} as its trace context. */
    public ToolCallsEvent withTrace(TraceContext trace) {
        return new ToolCallsEvent(streamId, turnId, calls, context, message, trace);
    }

    /** A turn with no context and no message. */
    public static ToolCallsEvent of(String streamId, String turnId, List<ToolCall> calls) {
        return new ToolCallsEvent(streamId, turnId, calls, CallContext.EMPTY, null);
    }
}
