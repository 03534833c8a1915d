package dev.toolbus.executor.internal;

import dev.toolbus.executor.approval.ApprovalStep;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.ControlEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.spi.CallGate;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.TurnState;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * Where control events act, at once (never queued behind turns): a cancel on the stream's unfinished
 * turns of principals the sender may answer for; an {@code input_response} or {@code approval_response}
 * recorded in the turn state as the answer of its id (the instance waiting on it applies it, here or
 * elsewhere). Only the event's own stream is ever touched. Answers recorded by any instance reach this
 * one through {@link #signal}.
 */
final class ControlRouter {

    private final StreamLanes lanes;
    private final PendingInputs inputs;
    private final CallGate gate;
    private final ControlMetrics metrics;
    private final Supplier<Duration> inputHold;

    ControlRouter(StreamLanes lanes, PendingInputs inputs, CallGate gate, ControlMetrics metrics,
                  Supplier<Duration> inputHold) {
        this.lanes = lanes;
        this.inputs = inputs;
        this.gate = gate;
        this.metrics = metrics;
        this.inputHold = inputHold;
    }

    Mono<ControlOutcome> route(ControlEvent event, Principal principal, TurnState state) {
        if (event instanceof CancelEvent c) {
            return Mono.fromSupplier(() -> cancel(c, principal));
        }
        if (event instanceof InputResponseEvent i) {
            return inputs.answer(i, principal, state, inputHold.get());
        }
        ApprovalResponseEvent a = (ApprovalResponseEvent) event;
        Mono<ControlOutcome> o;
        if (gate instanceof ApprovalStep step) {
            o = step.answer(a, principal, state);
        } else {
            o = Mono.fromSupplier(() -> gate == null ? ControlOutcome.UNKNOWN_REQUEST : gate.answer(a));
        }
        return o.doOnNext(x -> {
            if (x == ControlOutcome.UNKNOWN_REQUEST) {
                metrics.unknown(true);
            }
        });
    }

    /** An answer of this id was recorded by some instance: the step waiting on it applies it, if here. */
    void signal(String id) {
        if (id == null) {
            return;
        }
        if (id.startsWith(ControlRequest.INPUT_PREFIX)) {
            inputs.signal(id);
        } else if (id.startsWith(ControlRequest.APPROVAL_PREFIX) && gate instanceof ApprovalStep step) {
            step.signal(id);
        }
    }

    private ControlOutcome cancel(CancelEvent c, Principal principal) {
        List<TurnRun> turns = lanes.turns(c.streamId());
        boolean applied = false;
        // queued turns first (last to first): ending the running turn starts the next one at once
        for (int i = turns.size() - 1; i >= 0; i--) {
            TurnRun t = turns.get(i);
            if ((c.turnId() == null || c.turnId().equals(t.turn.turnId())) && principal.mayAnswerFor(t.principal)) {
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
                    + "' (unknown, expired, already answered, of another stream, or not yours to answer)";
        }
        if (event instanceof ApprovalResponseEvent a) {
            return "no approval with approval_id '" + a.approvalId() + "' waits for an answer on stream '"
                    + a.streamId() + "' (unknown, expired, already answered, of another stream, or not yours to answer)";
        }
        return "unknown request";
    }

}
