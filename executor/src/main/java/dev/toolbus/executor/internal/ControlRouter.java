package dev.toolbus.executor.internal;

import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.ControlEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.spi.CallGate;
import dev.toolbus.spi.ControlOutcome;
import java.util.List;

/**
 * Where control events act, at once (never queued behind turns): a cancel on the stream's unfinished
 * turns, an {@code input_response} on the pending questions, an {@code approval_response} on the gate.
 * Only the event's own stream is ever touched.
 */
final class ControlRouter {

    private final StreamLanes lanes;
    private final PendingInputs inputs;
    private final CallGate gate;
    private final ControlMetrics metrics;

    ControlRouter(StreamLanes lanes, PendingInputs inputs, CallGate gate, ControlMetrics metrics) {
        this.lanes = lanes;
        this.inputs = inputs;
        this.gate = gate;
        this.metrics = metrics;
    }

    ControlOutcome route(ControlEvent event) {
        if (event instanceof CancelEvent c) {
            return cancel(c);
        }
        if (event instanceof InputResponseEvent i) {
            return inputs.answer(i);
        }
        ApprovalResponseEvent a = (ApprovalResponseEvent) event;
        ControlOutcome o = gate == null ? ControlOutcome.UNKNOWN_REQUEST : gate.answer(a);
        if (o == ControlOutcome.UNKNOWN_REQUEST) {
            metrics.unknown(true);
        }
        return o;
    }

    private ControlOutcome cancel(CancelEvent c) {
        List<TurnRun> turns = lanes.turns(c.streamId());
        boolean applied = false;
        // queued turns first (last to first): ending the running turn starts the next one at once
        for (int i = turns.size() - 1; i >= 0; i--) {
            TurnRun t = turns.get(i);
            if (c.turnId() == null || c.turnId().equals(t.turn.turnId())) {
                applied |= t.cancelCalls(c.toolCallId(), c.reason());
            }
        }
        metrics.cancelEvent(applied);
        return applied ? ControlOutcome.APPLIED : ControlOutcome.NOTHING_TO_DO;
    }

    /** The text of the {@code UNKNOWN_REQUEST} error answering a control event. */
    static String unknownText(ControlEvent event) {
        if (event instanceof InputResponseEvent i) {
            return "no question with input_id '" + i.inputId() + "' waits for an answer on stream '" + i.streamId()
                    + "' (unknown, expired, already answered, or of another stream)";
        }
        if (event instanceof ApprovalResponseEvent a) {
            return "no approval with approval_id '" + a.approvalId() + "' waits for an answer on stream '"
                    + a.streamId() + "' (unknown, expired, already answered, or of another stream)";
        }
        return "unknown request";
    }

}
