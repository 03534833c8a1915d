package dev.toolbus.executor.internal;

import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ReplayedEvent;
import dev.toolbus.protocol.SendMessageEvent;
import dev.toolbus.protocol.ToolProgressEvent;
import dev.toolbus.spi.CallKey;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.RequestState;
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
final class CallEvents {

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
    /** Questions this call asked (their ordinal is part of their id). */
    private int asks;
    private final CallKey callKey;
    private volatile boolean asked;
    private boolean closed;

    /** The call's timeout: a question that sets its own timeout waits no longer (issue 21 M6). */
    private final long callTimeoutMs;

    CallEvents(Pipeline p, TurnRun turn, String toolCallId, String name, long callTimeoutMs,
               LongConsumer extendDeadline) {
        this.p = p;
        this.callTimeoutMs = callTimeoutMs;
        this.extendDeadline = extendDeadline;
        this.turn = turn;
        this.toolCallId = toolCallId;
        this.callKey = turn.key().call(toolCallId);
        this.name = name;
        this.intervalMs = p.settings.progressInterval().toMillis();
    }

    Mono<Void> progress(double progress, Double total, String message) {
        Mono<Void> out;
        Sinks.Empty<Void> replaced = null;
        synchronized (this) {
            if (closed) {
                return Mono.empty();
            }
            ToolProgressEvent e;
            try {
                e = ToolProgressEvent.builder().streamId(turn.turn.streamId()).turnId(turn.turn.turnId())
                        .toolCallId(toolCallId).name(name).progress(progress).total(total).message(message).build();
            } catch (IllegalArgumentException bad) {
                return Mono.error(bad);
            }
            long now = now();
            if (heldProgress == null && (!anyProgress || now - lastProgressMs >= intervalMs)) {
                out = publishProgress(e, now);
            } else {
                if (heldProgress != null) {
                    p.control.progress(false);
                    replaced = heldDone;
                }
                heldProgress = e;
                heldDone = Sinks.empty();
                if (progressTimer == null) {
                    long wait = Math.max(0, lastProgressMs + intervalMs - now);
                    progressTimer = p.timer.schedule(this::releaseHeld, wait, TimeUnit.MILLISECONDS);
                }
                out = heldDone.asMono();
            }
        }
        // outside the lock: publishing and completing the handler's Monos run code that may call back
        if (replaced != null) {
            replaced.tryEmitEmpty();
        }
        turn.flushLive();
        return out;
    }

    private void releaseHeld() {
        Mono<Void> m;
        Sinks.Empty<Void> done;
        synchronized (this) {
            progressTimer = null;
            if (closed || heldProgress == null) {
                return;
            }
            ToolProgressEvent e = heldProgress;
            done = heldDone;
            heldProgress = null;
            heldDone = null;
            m = publishProgress(e, now());
        }
        turn.flushLive();
        m.subscribe(null, done::tryEmitError, done::tryEmitEmpty);
    }

    /** Queues progress for publishing (the caller holds the monitor, then flushes). Dropped, not failed, beyond the turn's bound. */
    private Mono<Void> publishProgress(ToolProgressEvent e, long now) {
        anyProgress = true;
        lastProgressMs = now;
        Mono<Void> m = turn.live(e);
        p.control.progress(m != null);
        return m == null ? Mono.empty() : m;
    }

    Mono<Void> send(List<ContentPart> content) {
        Mono<Void> m;
        synchronized (this) {
            if (closed) {
                return Mono.error(new IllegalStateException("the call " + toolCallId
                        + " has ended; nothing more can be sent"));
            }
            SendMessageEvent e = SendMessageEvent.builder().streamId(turn.turn.streamId()).turnId(turn.turn.turnId())
                    .toolCallId(toolCallId).messageId(SendMessageEvent.messageId(toolCallId, ++messages))
                    .content(content).build();
            m = turn.live(e);
            if (m == null) {
                return Mono.error(TurnLiveEvents.overflow());
            }
            p.control.message();
        }
        turn.flushLive();
        return m;
    }

    Mono<InputAnswer> ask(dev.toolbus.tool.InputQuestion question) {
        Duration timeout = question.timeout();
        // the operator's default, or what the tool asks for, but never longer than the call's own timeout
        long ms = timeout == null ? p.settings.inputTimeout().toMillis()
                : Math.min(Math.max(1, safeMillis(timeout)), callTimeoutMs);
        PendingInputs.Pending q;
        ControlRequest request;
        synchronized (this) {
            if (closed) {
                return Mono.error(new IllegalStateException("the call " + toolCallId + " has ended; it cannot ask"));
            }
            if (questions != null) {
                questions.removeIf(x -> !x.waiting());
                if (questions.size() >= PendingInputs.MAX_PER_CALL) {
                    return Mono.error(new IllegalStateException("the call " + toolCallId + " already has "
                            + PendingInputs.MAX_PER_CALL + " questions waiting for an answer (at most "
                            + PendingInputs.MAX_PER_CALL + " per call)"));
                }
            }
            String principal = turn.principalId();
            // the ordinal is part of the id: a refused question takes none, so a run again asks the same ids
            int ordinal = asks + 1;
            String id = ControlRequest.inputId(callKey, ordinal);
            q = p.inputs.open(id, callKey, turn.state, principal, question.schema());
            if (q == null) {
                return Mono.error(new IllegalStateException(p.inputs.refusal(turn.turn.streamId(), principal)));
            }
            asks = ordinal;
            if (questions == null) {
                questions = new ArrayList<>(2);
            }
            questions.add(q);
            asked = true;
            long expiresAt = p.timer.now(TimeUnit.MILLISECONDS) + ms;
            extendDeadline.accept(expiresAt);
            request = ControlRequest.input(callKey, ordinal, InputRequestEvent.builder()
                    .streamId(turn.turn.streamId()).turnId(turn.turn.turnId()).toolCallId(toolCallId).inputId(id)
                    .expiresAtMs(expiresAt).message(question.message()).schema(question.schema())
                    .mode(question.mode() == dev.toolbus.tool.InputQuestion.Mode.URL ? "url" : null)
                    .url(question.url()).key(question.key()).build());
        }
        Mono.defer(() -> turn.state.requests().raise(request)).subscribe(s -> raised(q, s), q::fail);
        return q.answer.asMono();
    }

    private static long safeMillis(Duration d) {
        try {
            return d.toMillis();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * What the state said of a question: new (publish it), raised before and unanswered (publish it
     * again, marked replayed, with its first expiry), answered (the answer, at once: nothing is asked),
     * or closed (expired).
     */
    private void raised(PendingInputs.Pending q, RequestState s) {
        if (s.status() == RequestState.Status.NEW || s.status() == RequestState.Status.PENDING) {
            p.inputs.arm(q, s.request().expiresAtMs());
            if (s.answer(q.call) == null) {
                OutboundEvent e = s.status() == RequestState.Status.NEW ? s.request().event()
                        : ReplayedEvent.of(s.request().event());
                if (s.status() == RequestState.Status.PENDING) {
                    extendDeadline.accept(s.request().expiresAtMs());
                }
                Mono<Void> m;
                synchronized (this) {
                    m = closed ? Mono.empty() : turn.live(e);
                }
                if (m == null) {
                    q.fail(TurnLiveEvents.overflow());
                } else {
                    turn.flushLive();
                    m.subscribe(null, q::fail);
                }
            }
        }
        p.inputs.apply(q, s);
    }

    /** Whether the call asked the user anything (its result then depends on the answer: never cached). */
    boolean asked() {
        return asked;
    }

    /** The call ended: flush held progress, end open questions CANCEL, refuse what comes later. */
    void close() {
        List<PendingInputs.Pending> open;
        Mono<Void> flushed = null;
        Sinks.Empty<Void> done = null;
        synchronized (this) {
            if (closed) {
                return;
            }
            ToolProgressEvent held = heldProgress;
            done = heldDone;
            heldProgress = null;
            heldDone = null;
            if (progressTimer != null) {
                progressTimer.dispose();
                progressTimer = null;
            }
            if (held != null) {
                flushed = publishProgress(held, now());
            }
            closed = true;
            open = questions;
            questions = null;
        }
        if (flushed != null) {
            turn.flushLive();
            flushed.subscribe(null, done::tryEmitError, done::tryEmitEmpty);
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
