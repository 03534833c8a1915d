package dev.toolbus.executor.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.spi.CallKey;
import dev.toolbus.spi.ControlAnswer;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.ControlRequests;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.RequestState;
import dev.toolbus.spi.TurnState;
import dev.toolbus.tool.InputAnswer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * The questions tools of this instance asked that wait for an answer, by their deterministic input id
 * ({@code in-} + a hash of the principal, stream, turn, call and the question's ordinal). The answers
 * live in the turn state: whichever instance receives an {@code input_response} records it there
 * ({@link #answer}), and this instance applies it when it learns of it ({@link #signal}). Each question
 * resolves exactly once: answered, expired (on the timer: the question is closed in the state, and an
 * answer that won first still applies), cancelled with its call, or failed. Bounded in entries.
 */
final class PendingInputs {

    private static final Logger log = LoggerFactory.getLogger(PendingInputs.class);

    /** Questions waiting at once, at most. */
    static final int MAX_PENDING = 10_000;

    private final ConcurrentHashMap<String, Pending> pending = new ConcurrentHashMap<>();
    private final Scheduler timer;
    private final ControlMetrics metrics;

    PendingInputs(Scheduler timer, ControlMetrics metrics) {
        this.timer = timer;
        this.metrics = metrics;
    }

    /** One waiting question. */
    final class Pending {
        final String id;
        final CallKey call;
        final TurnState state;
        final Sinks.One<InputAnswer> answer = Sinks.one();
        private volatile Disposable expiry;

        Pending(String id, CallKey call, TurnState state) {
            this.id = id;
            this.call = call;
            this.state = state;
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

        /** Ends the question with an error (it could not be raised or published), if it is still waiting. */
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
     * Registers a question this instance waits on (before it is raised in the state).
     *
     * @return the pending question, or {@code null} when {@link #MAX_PENDING} already wait
     */
    Pending open(String id, CallKey call, TurnState state) {
        if (pending.size() >= MAX_PENDING) {
            return null;
        }
        Pending p = new Pending(id, call, state);
        pending.put(id, p);
        metrics.asked();
        return p;
    }

    /** Arms the question's expiry at {@code expiresAtMs} (epoch ms, the timer's clock). */
    void arm(Pending p, long expiresAtMs) {
        long delay = Math.max(0, expiresAtMs - timer.now(TimeUnit.MILLISECONDS));
        p.expiry = timer.schedule(() -> expire(p), delay, TimeUnit.MILLISECONDS);
        if (!p.waiting()) {
            p.stopTimer();
        }
    }

    /** Applies what the state knows of the question: its answer, or its close (expired). */
    void apply(Pending p, RequestState s) {
        ControlAnswer a = s.answer(p.call);
        if (a != null) {
            if (pending.remove(p.id, p)) {
                p.settle(toAnswer((InputResponseEvent) a.response()));
            }
        } else if (s.status() == RequestState.Status.CLOSED) {
            p.resolve(InputAnswer.Outcome.EXPIRED);
        }
    }

    /** An answer of this id was recorded (here or elsewhere): applied if this instance waits on it. */
    void signal(String id) {
        Pending p = id == null ? null : pending.get(id);
        if (p == null) {
            return;
        }
        p.state.requests().find(id).subscribe(s -> apply(p, s),
                e -> log.warn("question {}: reading its answer failed (its expiry applies it): {}", id, e.toString()));
    }

    /**
     * An {@code input_response} sent by {@code principal}: recorded in {@code state} as the answer of its
     * id (if that principal may answer it), applied if this instance waits on it.
     *
     * @param hold how long an answer without a question is held
     * @return {@code APPLIED} (recorded), {@code HELD}, or {@code UNKNOWN_REQUEST} (no such question,
     *     expired, answered, another stream's, or not this principal's to answer)
     */
    Mono<ControlOutcome> answer(InputResponseEvent e, Principal principal, TurnState state, Duration hold) {
        String id = e.inputId();
        if (!ControlRequest.isDerivedId(id) || !id.startsWith(ControlRequest.INPUT_PREFIX)) {
            metrics.unknown(false);
            return Mono.just(ControlOutcome.UNKNOWN_REQUEST);
        }
        return state.requests().answer(ControlAnswer.input(principal, e), hold).map(o -> {
            if (o == ControlRequests.AnswerOutcome.RECORDED) {
                signal(id);
                return ControlOutcome.APPLIED;
            }
            if (o == ControlRequests.AnswerOutcome.HELD) {
                return ControlOutcome.HELD;
            }
            metrics.unknown(false);
            return ControlOutcome.UNKNOWN_REQUEST;
        });
    }

    /** Questions waiting now. */
    int size() {
        return pending.size();
    }

    private void expire(Pending p) {
        if (!p.waiting()) {
            return;
        }
        p.state.requests().close(p.id).subscribe(s -> apply(p, s), e -> {
            log.warn("question {}: closing it in the turn state failed; it expires here: {}", p.id, e.toString());
            p.resolve(InputAnswer.Outcome.EXPIRED);
        }, () -> p.resolve(InputAnswer.Outcome.EXPIRED));
    }

    private static InputAnswer toAnswer(InputResponseEvent e) {
        InputAnswer.Outcome o = switch (e.action()) {
            case ACCEPT -> InputAnswer.Outcome.ACCEPT;
            case DECLINE -> InputAnswer.Outcome.DECLINE;
            case CANCEL -> InputAnswer.Outcome.CANCEL;
        };
        JsonNode content = o == InputAnswer.Outcome.ACCEPT ? e.content() : null;
        return new InputAnswer(o, content);
    }
}
