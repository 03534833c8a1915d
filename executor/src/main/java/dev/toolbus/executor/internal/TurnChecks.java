package dev.toolbus.executor.internal;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.ToolCallsEvent;

/**
 * Checks of a whole turn before any of its calls runs. A turn with more than
 * {@link ExecutionSettings#maxCallsPerTurn()} calls is refused with one {@code BAD_EVENT} error event
 * (no call runs, no {@code tool_result} is built): answering each of a few hundred thousand calls would
 * itself be the unbounded answer the limit exists to prevent.
 */
final class TurnChecks {

    private TurnChecks() {
    }

    /** The error answering a turn that may not run, or {@code null} when it may. */
    static ErrorEvent refusal(ToolCallsEvent turn, ExecutionSettings settings) {
        int n = turn.calls().size();
        if (n <= settings.maxCallsPerTurn()) {
            return null;
        }
        return new ErrorEvent(turn.streamId(), turn.turnId(), ErrorCode.BAD_EVENT, "the turn has " + n
                + " calls, above the limit of " + settings.maxCallsPerTurn()
                + " (execution.maxCallsPerTurn): no call was run; send fewer calls per turn");
    }
}
