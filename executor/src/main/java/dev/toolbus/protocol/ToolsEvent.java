package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;

/**
 * The answer to {@code list_tools} ({@code tools}): the definitions the session may see.
 *
 * @param streamId the conversation
 * @param requestId the request's id
 * @param format openai, anthropic or mcp
 * @param tools the definitions in that format
 * @param trace the W3C trace context of the span this event belongs to, or {@code null}
 */
@JsonPropertyOrder({"type", "stream_id", "request_id", "format", "tools"})
public record ToolsEvent(String streamId, String requestId, String format, List<JsonNode> tools,
        @JsonUnwrapped TraceContext trace)
        implements OutboundEvent {

    public ToolsEvent {
        Objects.requireNonNull(streamId, "streamId");
        requestId = requestId == null ? "" : requestId;
        tools = List.copyOf(tools);
    }

    /** The event without a trace context. */
    public ToolsEvent(String streamId, String requestId, String format, List<JsonNode> tools) {
        this(streamId, requestId, format, tools, null);
    }

    /** This event with {@code trace} as its trace context. */
    @Override
    public ToolsEvent withTrace(TraceContext trace) {
        return new ToolsEvent(streamId, requestId, format, tools, trace);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "tools";
    }
}
