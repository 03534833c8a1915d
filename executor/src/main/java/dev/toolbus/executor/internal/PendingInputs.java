package dev.toolbus.executor.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.ControlIds;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.tool.InputAnswer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.Disposable;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * The questions tools asked that wait for an answer, by input id ({@code in-<instanceId>-<n>}). Each
 * resolves exactly once: answered, expired (on the timer), cancelled with its call, or failed. Bounded
 * in entries.
 */
final class PendingInputs {

    /** Questions waiting at once, at most. */
    static final int MAX_PENDING = 10_000;

    private final ConcurrentHashMap<String, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong seq = new AtomicLong();
    private final String instanceId;
    private final Scheduler timer;
    private final ControlMetrics metrics;

    PendingInputs(String instanceId, Scheduler timer, ControlMetrics metrics) {
        this.instanceId = instanceId;
        this.timer = timer;
        this.metrics = metrics;
    }

    /** One waiting question. */
    final class Pending {
        final String id;
        final String streamId;
        final Sinks.One<InputAnswer> answer = Sinks.one();
        private volatile Disposable expiry;

        Pending(String id, String streamId) {
            this.id = id;
            this.streamId = streamId;
        }

        /** Whether nobody answered it yet. */
        boolean waiting() {
            return pending.get(id) == this;
        }

        /** Ends the question with this outcome (no content), if it is still waiting. */
        void resolve(InputAnswer.Outcome outcome) {
            if (pending.remove(id, this)) {
                settle(new InputAnswer(outcome, null));
            }
        }

        /** Ends the question with an error (it could not be published), if it is still waiting. */
        void fail(Throwable error) {
            if (pending.remove(id, this)) {
                stopTimer();
                answer.tryEmitError(error);
            }
        }

        private void settle(InputAnswer a) {
            stopTimer();
            metrics.answered(a.outcome());
            answer.tryEmitValue(a);
        }

        private void stopTimer() {
            Disposable d = expiry;
            if (d != null) {
                d.dispose();
            }
        }
    }

    /**
     * Registers a question of the stream that expires after {@code timeoutMs}.
     *
     * @return the pending question, or {@code null} when {@link #MAX_PENDING} already wait
     */
    Pending open(String streamId, long timeoutMs) {
        if (pending.size() >= MAX_PENDING) {
            return null;
        }
        Pending p = new Pending(ControlIds.of(ControlIds.INPUT, instanceId, seq.incrementAndGet()), streamId);
        pending.put(p.id, p);
        metrics.asked();
        p.expiry = timer.schedule(() -> p.resolve(InputAnswer.Outcome.EXPIRED), timeoutMs, TimeUnit.MILLISECONDS);
        if (!pending.containsKey(p.id)) {
            p.stopTimer();
        }
        return p;
    }

    /** An {@code input_response}: applied, or unknown (no such id, answered, expired, or another stream's). */
    ControlOutcome answer(InputResponseEvent e) {
        Pending p = pending.get(e.inputId());
        if (p == null || !p.streamId.equals(e.streamId()) || !pending.remove(e.inputId(), p)) {
            metrics.unknown(false);
            return ControlOutcome.UNKNOWN_REQUEST;
        }
        InputAnswer.Outcome o = switch (e.action()) {
            case ACCEPT -> InputAnswer.Outcome.ACCEPT;
            case DECLINE -> InputAnswer.Outcome.DECLINE;
            case CANCEL -> InputAnswer.Outcome.CANCEL;
        };
        JsonNode content = o == InputAnswer.Outcome.ACCEPT ? e.content() : null;
        p.settle(new InputAnswer(o, content));
        return ControlOutcome.APPLIED;
    }

    /** Questions waiting now. */
    int size() {
        return pending.size();
    }
}
