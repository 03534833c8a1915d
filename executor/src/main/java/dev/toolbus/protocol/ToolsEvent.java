package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;

/**
 * The answer to {@code list_tools} ({@code tools}): the definitions the session may see. Immutable; built with
 * {@link #builder()}.
 */
@JsonPropertyOrder({"type", "stream_id", "request_id", "format", "tools"})
public final class ToolsEvent implements OutboundEvent {

    private final String streamId;
    private final String requestId;
    private final String format;
    private final List<JsonNode> tools;
    private final TraceContext trace;

    private ToolsEvent(Builder b) {
        String streamId = b.streamId;
        String requestId = b.requestId;
        String format = b.format;
        List<JsonNode> tools = b.tools;
        TraceContext trace = b.trace;
        Objects.requireNonNull(streamId, "streamId");
        requestId = requestId == null ? "" : requestId;
        tools = List.copyOf(tools);
        this.streamId = streamId;
        this.requestId = requestId;
        this.format = format;
        this.tools = tools;
        this.trace = trace;
    }

    private ToolsEvent(ToolsEvent e, TraceContext trace) {
        this.streamId = e.streamId;
        this.requestId = e.requestId;
        this.format = e.format;
        this.tools = e.tools;
        this.trace = trace;
    }

    /** An event read from the wire. */
    @JsonCreator
    private static ToolsEvent fromWire(@JsonProperty("stream_id") String streamId,
                                       @JsonProperty("request_id") String requestId,
                                       @JsonProperty("format") String format,
                                       @JsonProperty("tools") List<JsonNode> tools,
                                       @JsonUnwrapped TraceContext trace) {
        return builder().streamId(streamId).requestId(requestId).format(format).tools(tools).trace(trace).build();
    }

    /** Starts a builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this event's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.streamId = streamId;
        b.requestId = requestId;
        b.format = format;
        b.tools = tools;
        b.trace = trace;
        return b;
    }

    /** The conversation. */
    @JsonProperty
    @Override
    public String streamId() {
        return streamId;
    }

    /** The request's id (may be empty, never {@code null}). */
    @JsonProperty
    public String requestId() {
        return requestId;
    }

    /** openai, anthropic or mcp. */
    @JsonProperty
    public String format() {
        return format;
    }

    /** The definitions in that format. */
    @JsonProperty
    public List<JsonNode> tools() {
        return tools;
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
    public ToolsEvent withTrace(TraceContext trace) {
        return new ToolsEvent(this, trace);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "tools";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ToolsEvent e && streamId.equals(e.streamId) && requestId.equals(e.requestId)
                && Objects.equals(format, e.format) && tools.equals(e.tools) && Objects.equals(trace, e.trace);
    }

    @Override
    public int hashCode() {
        return Objects.hash(streamId, requestId, format, tools, trace);
    }

    @Override
    public String toString() {
        return "ToolsEvent[streamId=" + streamId + ", requestId=" + requestId + ", format=" + format + ", tools="
                + tools + ", trace=" + trace + "]";
    }

    /**
     * Builder of {@link ToolsEvent}; {@code streamId} and {@code tools} are required.
     */
    public static final class Builder {
        private String streamId;
        private String requestId;
        private String format;
        private List<JsonNode> tools;
        private TraceContext trace;

        private Builder() {
        }

        /** The conversation. */
        public Builder streamId(String streamId) {
            this.streamId = streamId;
            return this;
        }

        /** The request's id ({@code null}: empty). */
        public Builder requestId(String requestId) {
            this.requestId = requestId;
            return this;
        }

        /** openai, anthropic or mcp. */
        public Builder format(String format) {
            this.format = format;
            return this;
        }

        /** The definitions in that format. */
        public Builder tools(List<JsonNode> tools) {
            this.tools = tools;
            return this;
        }

        /** The W3C trace context of the span this event belongs to ({@code null}: none). */
        public Builder trace(TraceContext trace) {
            this.trace = trace;
            return this;
        }

        /**
         * The event.
         *
         * @throws NullPointerException when {@code streamId} or {@code tools} is missing
         */
        public ToolsEvent build() {
            return new ToolsEvent(this);
        }
    }
}
