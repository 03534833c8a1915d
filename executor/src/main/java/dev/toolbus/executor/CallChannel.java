package dev.toolbus.executor;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.SendMessageEvent;
import dev.toolbus.protocol.ToolProgressEvent;
import dev.toolbus.tool.InputAnswer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * What one call says to the conversation while it runs: progress (rate-limited: within an interval
 * only the newest is kept and published at the interval's end; the last before the result is never
 * lost), messages ({@code <call>:msg:<n>}), and questions. Created on first use; closed when the call
 * ends, just before its result is recorded: pending progress is flushed, open questions end CANCEL,
 * and later use fails (progress is ignored).
 */
final class CallChannel {

    private final Pipeline p;
    private final TurnRun turn;
    private final String toolCallId;
    private final String name;
    private final long intervalMs;
    private int messages;
    private long lastProgressMs;
    private boolean anyProgress;
    private ToolProgressEvent heldProgress;
    private Sinks.Empty<Void> heldDone;
    private Disposable progressTimer;
    private final LongConsumer extendDeadline;
    private List<PendingInputs.Pending> questions;
    private volatile boolean asked;
    private boolean closed;

    CallChannel(Pipeline p, TurnRun turn, String toolCallId, String name, LongConsumer extendDeadline) {
        this.p = p;
        this.extendDeadline = extendDeadline;
        this.turn = turn;
        this.toolCallId = toolCallId;
        this.name = name;
        this.intervalMs = p.settings.progressInterval().toMillis();
    }

    synchronized Mono<Void> progress(double progress, Double total, String message) {
        if (closed) {
            return Mono.empty();
        }
        ToolProgressEvent e;
        try {
            e = new ToolProgressEvent(turn.turn.streamId(), turn.turn.turnId(), toolCallId, name, progress, total,
                    message);
        } catch (IllegalArgumentException bad) {
            return Mono.error(bad);
        }
        long now = now();
        if (heldProgress == null && (!anyProgress || now - lastProgressMs >= intervalMs)) {
            return publishProgress(e, now);
        }
        if (heldProgress != null) {
            p.control.progress(false);
            heldDone.tryEmitEmpty();
        }
        heldProgress = e;
        heldDone = Sinks.empty();
        if (progressTimer == null) {
            long wait = Math.max(0, lastProgressMs + intervalMs - now);
            progressTimer = p.timer.schedule(this::releaseHeld, wait, TimeUnit.MILLISECONDS);
        }
        return heldDone.asMono();
    }

    private synchronized void releaseHeld() {
        progressTimer = null;
        if (closed || heldProgress == null) {
            return;
        }
        ToolProgressEvent e = heldProgress;
        Sinks.Empty<Void> done = heldDone;
        heldProgress = null;
        heldDone = null;
        publishProgress(e, now()).subscribe(null, done::tryEmitError, done::tryEmitEmpty);
    }

    /** Publishes progress now (the caller holds the monitor). Dropped, not failed, beyond the turn's bound. */
    private Mono<Void> publishProgress(ToolProgressEvent e, long now) {
        anyProgress = true;
        lastProgressMs = now;
        Mono<Void> m = turn.live(e);
        p.control.progress(m != null);
        return m == null ? Mono.empty() : m;
    }

    synchronized Mono<Void> send(List<ContentPart> content) {
        if (closed) {
            return Mono.error(new IllegalStateException("the call " + toolCallId + " has ended; nothing more can be sent"));
        }
        SendMessageEvent e = new SendMessageEvent(turn.turn.streamId(), turn.turn.turnId(), toolCallId,
                SendMessageEvent.messageId(toolCallId, ++messages), content);
        Mono<Void> m = turn.live(e);
        if (m == null) {
            return Mono.error(LiveChannel.overflow());
        }
        p.control.message();
        return m;
    }

    Mono<InputAnswer> ask(String message, JsonNode schema, Duration timeout) {
        long ms = timeout == null ? p.settings.inputTimeout().toMillis() : Math.max(1, timeout.toMillis());
        PendingInputs.Pending q;
        InputRequestEvent e;
        synchronized (this) {
            if (closed) {
                return Mono.error(new IllegalStateException("the call " + toolCallId + " has ended; it cannot ask"));
            }
            q = p.inputs.open(turn.turn.streamId(), ms);
            if (q == null) {
                return Mono.error(new IllegalStateException("too many questions wait for an answer (at most "
                        + PendingInputs.MAX_PENDING + ")"));
            }
            if (questions == null) {
                questions = new ArrayList<>(2);
            }
            questions.removeIf(x -> !x.waiting());
            questions.add(q);
            asked = true;
            long expiresAt = p.timer.now(TimeUnit.MILLISECONDS) + ms;
            extendDeadline.accept(expiresAt);
            e = new InputRequestEvent(turn.turn.streamId(), turn.turn.turnId(), toolCallId, q.id, expiresAt,
                    message, schema);
            Mono<Void> m = turn.live(e);
            if (m == null) {
                q.fail(LiveChannel.overflow());
            } else {
                m.subscribe(null, q::fail);
            }
        }
        return q.answer.asMono();
    }

    /** Whether the call asked the user anything (its result then depends on the answer: never cached). */
    boolean asked() {
        return asked;
    }

    /** The call ended: flush held progress, end open questions CANCEL, refuse what comes later. */
    void close() {
        List<PendingInputs.Pending> open;
        synchronized (this) {
            if (closed) {
                return;
            }
            ToolProgressEvent held = heldProgress;
            Sinks.Empty<Void> done = heldDone;
            heldProgress = null;
            heldDone = null;
            if (progressTimer != null) {
                progressTimer.dispose();
                progressTimer = null;
            }
            if (held != null) {
                publishProgress(held, now()).subscribe(null, done::tryEmitError, done::tryEmitEmpty);
            }
            closed = true;
            open = questions;
            questions = null;
        }
        if (open != null) {
            for (PendingInputs.Pending q : open) {
                q.resolve(InputAnswer.Outcome.CANCEL);
            }
        }
    }

    private long now() {
        return p.timer.now(TimeUnit.MILLISECONDS);
    }
}
