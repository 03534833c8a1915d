package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonIgnore;
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
 * @param mode {@code url} for a question that asks the user to visit {@code url} (the answer has no
 *     content), {@code null} for a form (the default; {@code form} is read as {@code null})
 * @param url the URL to visit in URL mode, else {@code null}
 * @param key the tool's name for the question ({@link dev.toolbus.tool.InputQuestion#key()}), or
 *     {@code null}; in process only, never encoded
 */
@JsonPropertyOrder({"type", "stream_id", "turn_id", "tool_call_id", "input_id", "expires_at_ms", "message", "schema",
        "mode", "url"})
public record InputRequestEvent(String streamId, String turnId, String toolCallId, String inputId, long expiresAtMs,
                                String message, JsonNode schema,
        @JsonUnwrapped TraceContext trace, String mode, String url, @JsonIgnore String key) implements OutboundEvent {

    public InputRequestEvent {
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(turnId, "turnId");
        Objects.requireNonNull(toolCallId, "toolCallId");
        Objects.requireNonNull(inputId, "inputId");
        message = message == null ? "" : message;
        if ("form".equals(mode)) {
            mode = null;
        }
        if (mode != null && !mode.equals("url")) {
            throw new IllegalArgumentException("input_request mode is form or url, not '" + mode + "'");
        }
        if ("url".equals(mode) && (url == null || url.isEmpty())) {
            throw new IllegalArgumentException("a url-mode input_request needs its url");
        }
        if (mode == null) {
            url = null;
        }
    }

    /** A form question with a trace context. */
    public InputRequestEvent(String streamId, String turnId, String toolCallId, String inputId, long expiresAtMs,
        String message, JsonNode schema, TraceContext trace) {
        this(streamId, turnId, toolCallId, inputId, expiresAtMs, message, schema, trace, null, null, null);
    }

    /** Whether the user is asked to visit {@link #url()} rather than to answer a form. */
    @JsonIgnore
    public boolean urlMode() {
        return mode != null;
    }

    /** The event without a trace context. */
    public InputRequestEvent(String streamId, String turnId, String toolCallId, String inputId, long expiresAtMs,
        String message, JsonNode schema) {
        this(streamId, turnId, toolCallId, inputId, expiresAtMs, message, schema, null);
    }

    /** This event with {@code trace} as its trace context. */
    @Override
    public InputRequestEvent withTrace(TraceContext trace) {
        return new InputRequestEvent(streamId, turnId, toolCallId, inputId, expiresAtMs, message, schema, trace, mode, url,
                key);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "input_request";
    }
}
