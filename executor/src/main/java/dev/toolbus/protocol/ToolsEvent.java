package dev.toolbus.protocol;

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
 */
@JsonPropertyOrder({"type", "stream_id", "request_id", "format", "tools"})
public record ToolsEvent(String streamId, String requestId, String format, List<JsonNode> tools)
        implements OutboundEvent {

    public ToolsEvent {
        Objects.requireNonNull(streamId, "streamId");
        requestId = requestId == null ? "" : requestId;
        tools = List.copyOf(tools);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "tools";
    }
}
