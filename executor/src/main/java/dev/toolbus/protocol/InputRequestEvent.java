package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * A question a running tool asks the user ({@code input_request}, MCP elicitation); answered with an
 * {@code input_response} naming {@code input_id} before {@code expires_at_ms}.
 *
 * @param streamId the conversation
 * @param turnId the turn
 * @param toolCallId the call that asks
 * @param inputId {@code in-<instance>-<n>}
 * @param expiresAtMs when the question expires (epoch ms)
 * @param message the question
 * @param schema a JSON Schema of the answer's content, or {@code null}
 * @param trace the W3C trace context of the span this event belongs to, or {@code null}
 */
@JsonPropertyOrder({"type", "stream_id", "turn_id", "tool_call_id", "input_id", "expires_at_ms", "message", "schema"})
public record InputRequestEvent(String streamId, String turnId, String toolCallId, String inputId, long expiresAtMs,
                                String message, JsonNode schema,
        @JsonUnwrapped TraceContext trace) implements OutboundEvent {

    public InputRequestEvent {
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(turnId, "turnId");
        Objects.requireNonNull(toolCallId, "toolCallId");
        Objects.requireNonNull(inputId, "inputId");
        message = message == null ? "" : message;
    }

    /** The event without a trace context. */
    public InputRequestEvent(String streamId, String turnId, String toolCallId, String inputId, long expiresAtMs,
        String message, JsonNode schema) {
        this(streamId, turnId, toolCallId, inputId, expiresAtMs, message, schema, null);
    }

    /** This event with {@code trace} as its trace context. */
    @Override
    public InputRequestEvent withTrace(TraceContext trace) {
        return new InputRequestEvent(streamId, turnId, toolCallId, inputId, expiresAtMs, message, schema, trace);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "input_request";
    }
}
