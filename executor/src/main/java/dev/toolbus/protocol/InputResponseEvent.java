package dev.toolbus.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * The user's answer to an {@code input_request} ({@code input_response}).
 *
 * @param streamId the conversation (must be the stream of the request)
 * @param inputId the request's {@code input_id}
 * @param action accept, decline or cancel
 * @param content the answer (an object matching the request's schema) for accept, else usually {@code null}
 * @param trace the W3C trace context of the answering side's span, or {@code null}
 */
public record InputResponseEvent(String streamId, String inputId, InputAction action, JsonNode content,
                                 TraceContext trace) implements ControlEvent {

    public InputResponseEvent {
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(inputId, "inputId");
        Objects.requireNonNull(action, "action");
    }

    /** An answer without a trace context. */
    public InputResponseEvent(String streamId, String inputId, InputAction action, JsonNode content) {
        this(streamId, inputId, action, content, null);
    }

    /** This answer with {@code trace} as its trace context. */
    public InputResponseEvent withTrace(TraceContext trace) {
        return new InputResponseEvent(streamId, inputId, action, content, trace);
    }
}
