package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * A question a running tool asks the user ({@code input_request}, MCP elicitation); answered with an
 * {@code input_response} naming {@code input_id} before {@code expires_at_ms}. A form question (the
 * default) may carry a {@code schema} of the answer's content; a URL-mode question ({@code mode} {@code url})
 * asks the user to visit {@code url} and its answer has no content. Immutable; built with {@link #builder()}.
 */
@JsonPropertyOrder({"type", "stream_id", "turn_id", "tool_call_id", "input_id", "expires_at_ms", "message", "schema",
        "mode", "url"})
public final class InputRequestEvent implements OutboundEvent {

    private final String streamId;
    private final String turnId;
    private final String toolCallId;
    private final String inputId;
    private final long expiresAtMs;
    private final String message;
    private final JsonNode schema;
    private final TraceContext trace;
    private final String mode;
    private final String url;
    private final String key;

    private InputRequestEvent(Builder b) {
        String streamId = b.streamId;
        String turnId = b.turnId;
        String toolCallId = b.toolCallId;
        String inputId = b.inputId;
        long expiresAtMs = b.expiresAtMs;
        String message = b.message;
        JsonNode schema = b.schema;
        TraceContext trace = b.trace;
        String mode = b.mode;
        String url = b.url;
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
        this.streamId = streamId;
        this.turnId = turnId;
        this.toolCallId = toolCallId;
        this.inputId = inputId;
        this.expiresAtMs = expiresAtMs;
        this.message = message;
        this.schema = schema;
        this.trace = trace;
        this.mode = mode;
        this.url = url;
        this.key = b.key;
    }

    private InputRequestEvent(InputRequestEvent e, TraceContext trace) {
        this.streamId = e.streamId;
        this.turnId = e.turnId;
        this.toolCallId = e.toolCallId;
        this.inputId = e.inputId;
        this.expiresAtMs = e.expiresAtMs;
        this.message = e.message;
        this.schema = e.schema;
        this.trace = trace;
        this.mode = e.mode;
        this.url = e.url;
        this.key = e.key;
    }

    /** An event read from the wire. */
    @JsonCreator
    private static InputRequestEvent fromWire(@JsonProperty("stream_id") String streamId,
                                              @JsonProperty("turn_id") String turnId,
                                              @JsonProperty("tool_call_id") String toolCallId,
                                              @JsonProperty("input_id") String inputId,
                                              @JsonProperty("expires_at_ms") long expiresAtMs,
                                              @JsonProperty("message") String message,
                                              @JsonProperty("schema") JsonNode schema,
                                              @JsonProperty("mode") String mode,
                                              @JsonProperty("url") String url,
                                              @JsonUnwrapped TraceContext trace) {
        return builder().streamId(streamId).turnId(turnId).toolCallId(toolCallId).inputId(inputId)
                .expiresAtMs(expiresAtMs).message(message).schema(schema).mode(mode).url(url).trace(trace).build();
    }

    /** Starts a builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this event's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.streamId = streamId;
        b.turnId = turnId;
        b.toolCallId = toolCallId;
        b.inputId = inputId;
        b.expiresAtMs = expiresAtMs;
        b.message = message;
        b.schema = schema;
        b.trace = trace;
        b.mode = mode;
        b.url = url;
        b.key = key;
        return b;
    }

    /** The conversation. */
    @JsonProperty
    @Override
    public String streamId() {
        return streamId;
    }

    /** The turn. */
    @JsonProperty
    public String turnId() {
        return turnId;
    }

    /** The call that asks. */
    @JsonProperty
    public String toolCallId() {
        return toolCallId;
    }

    /** {@code in-<instance>-<n>}. */
    @JsonProperty
    public String inputId() {
        return inputId;
    }

    /** When the question expires (epoch ms). */
    @JsonProperty
    public long expiresAtMs() {
        return expiresAtMs;
    }

    /** The question (may be empty, never {@code null}). */
    @JsonProperty
    public String message() {
        return message;
    }

    /** A JSON Schema of the answer's content, or {@code null}. */
    @JsonProperty
    public JsonNode schema() {
        return schema;
    }

    /**
     * {@code url} for a question that asks the user to visit {@link #url()} (the answer has no content),
     * {@code null} for a form (the default).
     */
    @JsonProperty
    public String mode() {
        return mode;
    }

    /** The URL to visit in URL mode, else {@code null}. */
    @JsonProperty
    public String url() {
        return url;
    }

    /**
     * The tool's name for the question ({@link dev.toolbus.tool.InputQuestion#key()}), or {@code null}; in
     * process only, never encoded.
     */
    @JsonIgnore
    public String key() {
        return key;
    }

    /** Whether the user is asked to visit {@link #url()} rather than to answer a form. */
    @JsonIgnore
    public boolean urlMode() {
        return mode != null;
    }

    /** The W3C trace context of the span this event belongs to, or {@code null}. */
    @Override
    @JsonProperty
    @JsonUnwrapped
    public TraceContext trace() {
        return trace;
    }

    /** This event with {@code trace} as its trace context. */
    @Override
    public InputRequestEvent withTrace(TraceContext trace) {
        return new InputRequestEvent(this, trace);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "input_request";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof InputRequestEvent e && streamId.equals(e.streamId) && turnId.equals(e.turnId)
                && toolCallId.equals(e.toolCallId) && inputId.equals(e.inputId) && expiresAtMs == e.expiresAtMs
                && message.equals(e.message) && Objects.equals(schema, e.schema) && Objects.equals(trace, e.trace)
                && Objects.equals(mode, e.mode) && Objects.equals(url, e.url) && Objects.equals(key, e.key);
    }

    @Override
    public int hashCode() {
        return Objects.hash(streamId, turnId, toolCallId, inputId, expiresAtMs, message, schema, trace, mode, url,
                key);
    }

    @Override
    public String toString() {
        return "InputRequestEvent[streamId=" + streamId + ", turnId=" + turnId + ", toolCallId=" + toolCallId
                + ", inputId=" + inputId + ", expiresAtMs=" + expiresAtMs + ", message=" + message + ", schema="
                + schema + ", trace=" + trace + ", mode=" + mode + ", url=" + url + ", key=" + key + "]";
    }

    /**
     * Builder of {@link InputRequestEvent}; the four ids are required.
     */
    public static final class Builder {
        private String streamId;
        private String turnId;
        private String toolCallId;
        private String inputId;
        private long expiresAtMs;
        private String message;
        private JsonNode schema;
        private TraceContext trace;
        private String mode;
        private String url;
        private String key;

        private Builder() {
        }

        /** The conversation. */
        public Builder streamId(String streamId) {
            this.streamId = streamId;
            return this;
        }

        /** The turn. */
        public Builder turnId(String turnId) {
            this.turnId = turnId;
            return this;
        }

        /** The call that asks. */
        public Builder toolCallId(String toolCallId) {
            this.toolCallId = toolCallId;
            return this;
        }

        /** {@code in-<instance>-<n>}. */
        public Builder inputId(String inputId) {
            this.inputId = inputId;
            return this;
        }

        /** When the question expires (epoch ms). */
        public Builder expiresAtMs(long expiresAtMs) {
            this.expiresAtMs = expiresAtMs;
            return this;
        }

        /** The question ({@code null}: empty). */
        public Builder message(String message) {
            this.message = message;
            return this;
        }

        /** A JSON Schema of the answer's content, or {@code null}. */
        public Builder schema(JsonNode schema) {
            this.schema = schema;
            return this;
        }

        /** The W3C trace context of the span this event belongs to ({@code null}: none). */
        public Builder trace(TraceContext trace) {
            this.trace = trace;
            return this;
        }

        /** {@code url} for a URL-mode question, {@code null} or {@code form} for a form (the default). */
        public Builder mode(String mode) {
            this.mode = mode;
            return this;
        }

        /** The URL to visit in URL mode (ignored for a form). */
        public Builder url(String url) {
            this.url = url;
            return this;
        }

        /** The tool's name for the question, or {@code null}; in process only, never encoded. */
        public Builder key(String key) {
            this.key = key;
            return this;
        }

        /**
         * The event.
         *
         * @throws NullPointerException when {@code streamId}, {@code turnId}, {@code toolCallId} or
         *     {@code inputId} is missing
         * @throws IllegalArgumentException when {@code mode} is neither {@code form} nor {@code url}, or a
         *     URL-mode question has no {@code url}
         */
        public InputRequestEvent build() {
            return new InputRequestEvent(this);
        }
    }
}
