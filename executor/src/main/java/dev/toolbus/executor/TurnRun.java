package dev.toolbus.executor;

import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.protocol.UserMessageEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * One turn in flight. Calls start together (each then waits for a slot); results are emitted in call
 * order as soon as every earlier call is done; after the last result come the media follow-ups of all
 * calls, then {@code turn_completed}.
 */
final class TurnRun {

    /** Where a turn's events go. */
    interface Sink {
        void next(OutboundEvent event);

        /** All events were emitted; called once. */
        void complete();
    }

    final ToolCallsEvent turn;
    private final Pipeline pipeline;
    private final Sink sink;
    private final ToolResultEvent[] results;
    private final List<UserMessageEvent>[] media;
    private final CallRun[] calls;
    private final long startNanos;
    private int nextEmit;
    private int errors;
    private boolean finished;
    volatile boolean cancelled;

    @SuppressWarnings("unchecked")
    TurnRun(ToolCallsEvent turn, Pipeline pipeline, Sink sink) {
        this.turn = turn;
        this.pipeline = pipeline;
        this.sink = sink;
        int n = turn.calls().size();
        this.results = new ToolResultEvent[n];
        this.media = new List[n];
        this.calls = new CallRun[n];
        this.startNanos = pipeline.nanoClock.getAsLong();
    }

    /** Starts every call of the turn. */
    void start() {
        List<ToolCall> list = turn.calls();
        if (list.isEmpty()) {
            finish();
            return;
        }
        for (int i = 0; i < list.size() && !cancelled; i++) {
            CallRun c = new CallRun(pipeline, this, i, list.get(i));
            calls[i] = c;
            c.start();
        }
    }

    /** Records a call's result and emits whatever is now in order. */
    synchronized void complete(int index, ToolResultEvent result, List<UserMessageEvent> messages) {
        if (finished || results[index] != null) {
            return;
        }
        results[index] = result;
        media[index] = messages;
        if (result.isError()) {
            errors++;
        }
        while (nextEmit < results.length && results[nextEmit] != null) {
            sink.next(results[nextEmit++]);
        }
        if (nextEmit == results.length) {
            finish();
        }
    }

    /** Cancels running calls; the turn emits nothing more. */
    void cancel() {
        cancelled = true;
        synchronized (this) {
            finished = true;
        }
        for (CallRun c : calls) {
            if (c != null) {
                c.cancel();
            }
        }
    }

    private void finish() {
        finished = true;
        for (List<UserMessageEvent> m : media) {
            if (m != null) {
                for (UserMessageEvent e : m) {
                    sink.next(e);
                }
            }
        }
        List<String> ids = new ArrayList<>(results.length);
        for (ToolCall c : turn.calls()) {
            ids.add(c.toolCallId());
        }
        long elapsedMs = (pipeline.nanoClock.getAsLong() - startNanos) / 1_000_000;
        sink.next(new TurnCompletedEvent(turn.streamId(), turn.turnId(), ids, errors, elapsedMs));
        pipeline.metrics.turn();
        sink.complete();
    }
}
