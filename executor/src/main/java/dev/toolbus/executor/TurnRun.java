package dev.toolbus.executor;

import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.protocol.UserMessageEvent;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One turn in flight. Calls start together (each then waits for a slot); results are emitted in call
 * order as soon as every earlier call is done; after the last result come the media follow-ups of all
 * calls, then {@code turn_completed}. The owner of the sink calls {@link #done()} once the events are
 * delivered (or published), which frees the stream for its next turn.
 */
final class TurnRun {

    /** Where a turn's events go. */
    interface Sink {
        void next(OutboundEvent event);

        /** All events were emitted; called once. The sink's owner then calls {@link TurnRun#done()}. */
        void complete();
    }

    final ToolCallsEvent turn;
    final long startNanos;
    private final Pipeline pipeline;
    private final Sink sink;
    private final Runnable onDone;
    private final ToolResultEvent[] results;
    private final List<UserMessageEvent>[] media;
    private final CallRun[] calls;
    private final AtomicBoolean doneOnce = new AtomicBoolean();
    private int nextEmit;
    private int errors;
    private boolean finished;
    private volatile boolean started;
    volatile boolean cancelled;

    @SuppressWarnings("unchecked")
    TurnRun(ToolCallsEvent turn, Pipeline pipeline, Sink sink, Runnable onDone) {
        this.turn = turn;
        this.pipeline = pipeline;
        this.sink = sink;
        this.onDone = onDone;
        int n = turn.calls().size();
        this.results = new ToolResultEvent[n];
        this.media = new List[n];
        this.calls = new CallRun[n];
        this.startNanos = pipeline.nanoClock.getAsLong();
    }

    /** Starts every call of the turn (its stream's lane is now held). */
    void start() {
        started = true;
        if (cancelled) {
            done();
            return;
        }
        List<ToolCall> list = turn.calls();
        if (list.isEmpty()) {
            synchronized (this) {
                try {
                    finish(pipeline.nanoClock.getAsLong());
                } catch (Throwable t) {
                    abandon(t);
                }
            }
            return;
        }
        for (int i = 0; i < list.size() && !cancelled; i++) {
            CallRun c = new CallRun(pipeline, this, i, list.get(i));
            calls[i] = c;
            try {
                c.start();
            } catch (Throwable t) {
                c.crash(t);
            }
        }
    }

    /** Records a call's result and emits whatever is now in order. */
    synchronized void complete(int index, ToolResultEvent result, List<UserMessageEvent> messages, long nowNanos) {
        if (finished || results[index] != null) {
            return;
        }
        results[index] = result;
        media[index] = messages;
        if (result.isError()) {
            errors++;
        }
        try {
            while (nextEmit < results.length && results[nextEmit] != null) {
                sink.next(results[nextEmit++]);
            }
            if (nextEmit == results.length) {
                finish(nowNanos);
            }
        } catch (Throwable t) {
            abandon(t);
        }
    }

    /** The sink threw (an {@code Error} included): the turn emits nothing more, and its stream is freed. */
    private void abandon(Throwable t) {
        org.slf4j.LoggerFactory.getLogger(TurnRun.class).error("turn {} of stream {} could not deliver its events; "
                + "its stream is freed", turn.turnId(), turn.streamId(), t);
        finished = true;
        done();
    }

    /** Cancels running calls; the turn emits nothing more and frees its stream. */
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
        if (started) {
            done();
        }
    }

    /** Frees the stream for its next turn; idempotent. */
    void done() {
        if (onDone != null && doneOnce.compareAndSet(false, true)) {
            onDone.run();
        }
    }

    /** Whether the executor refused this turn (it was closing): it has no lane and runs nothing. */
    boolean rejected() {
        return onDone == null;
    }

    private void finish(long nowNanos) {
        finished = true;
        for (List<UserMessageEvent> m : media) {
            if (m != null && !m.isEmpty()) {
                for (int i = 0; i < m.size(); i++) {
                    sink.next(m.get(i));
                }
            }
        }
        sink.next(new TurnCompletedEvent(turn.streamId(), turn.turnId(), callIds(turn.calls()), errors,
                (nowNanos - startNanos) / 1_000_000));
        pipeline.metrics.turn();
        sink.complete();
    }

    private static List<String> callIds(List<ToolCall> calls) {
        if (calls.size() == 1) {
            return List.of(calls.get(0).toolCallId());
        }
        String[] ids = new String[calls.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = calls.get(i).toolCallId();
        }
        return List.of(ids);
    }
}
