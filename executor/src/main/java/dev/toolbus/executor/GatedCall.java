package dev.toolbus.executor;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.tool.ToolDefinition;

/**
 * A call at the {@link CallGate}.
 *
 * @param turn its turn
 * @param index its position in the turn
 * @param call the call as it arrived
 * @param definition the resolved tool
 * @param arguments the validated arguments (context fields filled in); do not modify
 */
public record GatedCall(GatedTurn turn, int index, ToolCall call, ToolDefinition definition, ObjectNode arguments) {
}
