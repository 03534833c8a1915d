package dev.toolbus.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * One tool call of a turn. Arguments arrive either as a JSON object ({@code arguments}) or as the
 * model's raw JSON string ({@code argumentsJson}, OpenAI style), which the executor parses and
 * validates; a string that is not a JSON object is answered {@code INVALID_ARGUMENTS}.
 *
 * @param toolCallId the model's call id
 * @param name the tool name (may be empty: answered {@code UNKNOWN_TOOL})
 * @param arguments the arguments as JSON, or {@code null} when given as a string
 * @param argumentsJson the raw argument string, or {@code null} when given as JSON
 * @param caller who makes the call ({@code caller} on the wire; {@code null} for {@link Caller#DIRECT})
 */
public record ToolCall(String toolCallId, String name, JsonNode arguments, String argumentsJson, Caller caller) {

    public ToolCall {
        Objects.requireNonNull(toolCallId, "toolCallId");
        name = name == null ? "" : name;
        caller = caller == null ? Caller.DIRECT : caller;
    }

    /** A direct call. */
    public ToolCall(String toolCallId, String name, JsonNode arguments, String argumentsJson) {
        this(toolCallId, name, arguments, argumentsJson, Caller.DIRECT);
    }

    /** This call made by {@code who}. */
    public ToolCall withCaller(Caller who) {
        return new ToolCall(toolCallId, name, arguments, argumentsJson, who);
    }

    /** A call with JSON-object arguments. */
    public static ToolCall of(String toolCallId, String name, JsonNode arguments) {
        return new ToolCall(toolCallId, name, arguments, null);
    }

    /** A call with the model's raw JSON argument string. */
    public static ToolCall ofJson(String toolCallId, String name, String argumentsJson) {
        return new ToolCall(toolCallId, name, null, argumentsJson);
    }
}
