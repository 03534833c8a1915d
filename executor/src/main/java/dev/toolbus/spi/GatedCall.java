package dev.toolbus.spi;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.tool.ToolDefinition;
import java.util.function.Consumer;

/**
 * A call at the {@link CallGate}.
 *
 * @param turn its turn
 * @param index its position in the turn
 * @param call the call as it arrived
 * @param definition the resolved tool
 * @param arguments the validated arguments (context fields filled in); do not modify
 * @param note records what the gate did for the call log ({@code CallRecord.approval}); last note wins
 */
public record GatedCall(GatedTurn turn, int index, ToolCall call, ToolDefinition definition, ObjectNode arguments,
                        Consumer<String> note) {

    public GatedCall {
        note = note == null ? n -> { } : note;
    }

    /** A gated call whose notes go nowhere. */
    public GatedCall(GatedTurn turn, int index, ToolCall call, ToolDefinition definition, ObjectNode arguments) {
        this(turn, index, call, definition, arguments, null);
    }
}
