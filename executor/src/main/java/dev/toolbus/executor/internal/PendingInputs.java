package dev.toolbus.executor.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.toolbus.internal.JsonSchemas;
import dev.toolbus.protocol.InputAction;
import dev.toolbus.protocol.InputRequestEvent;
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
import java.util.ArrayList;
import java.util.List;
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
 * answer that won first still applies), cancelled with its call, or failed. Bounded in entries: in all,
 * per stream and per principal (so one plugin cannot fill the executor-wide cap and keep every other
 * stream's tools from asking); {@link CallEvents} bounds each call's own. Accepted content that breaks
 * the question's schema is refused before it is recorded ({@code INVALID_ANSWER}).
 */
final class PendingInputs {

    private static final Logger log = LoggerFactory.getLogger(PendingInputs.class);

    /** Questions waiting at once, at most. */
    static final int MAX_PENDING = 10_000;
    /** Questions of one stream waiting at once, at most. */
    static final int MAX_PER_STREAM = 64;
    /** Questions of one principal (who sent the turns) waiting at once, at most. */
    static final int MAX_PER_PRINCIPAL = 1_000;
    /** Questions of one call waiting at once, at most (counted by the call). */
    static final int MAX_PER_CALL = 4;

    private final ConcurrentHashMap<String, Pending> pending = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Integer> perStream = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Integer> perPrincipal = new ConcurrentHashMap<>();
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
        final String principal;
        /** The schema the answer's content must match, or {@code null}. */
        final JsonNode schema;
        final Sinks.One<InputAnswer> answer = Sinks.one();
        private volatile Disposable expiry;
        private volatile com.networknt.schema.Schema compiled;

        Pending(String id, CallKey call, TurnState state, String principal, JsonNode schema) {
            this.id = id;
            this.call = call;
            this.state = state;
            this.principal = principal;
            this.schema = schema;
        }

        String streamId() {
            return call.streamId();
        }

        /**
         * What is wrong with accepted content by the question's schema (empty: nothing). A schema the
         * validator cannot compile checks nothing: the tool gave it, and only its own answers depend on it.
         */
        List<String> problems(JsonNode content) {
            if (schema == null || !schema.isObject()) {
                return List.of();
            }
            com.networknt.schema.Schema s = compiled;
            if (s == null) {
                try {
                    s = JsonSchemas.compile(schema);
                } catch (RuntimeException e) {
                    return List.of();
                }
                compiled = s;
            }
            return PendingInputs.problems(s, content);
        }

        /** Whether nobody answered it yet. */
        boolean waiting() {
            return pending.get(id) == this;
        }

        /** Ends the question with this outcome (no content), if it is still waiting. */
        void resolve(InputAnswer.Outcome outcome) {
            if (pending.remove(id, this)) {
                released(this);
                settle(new InputAnswer(outcome, null));
            }
        }

        /** Ends the question with an error (it could not be raised or published), if it is still waiting. */
        void fail(Throwable error) {
            if (pending.remove(id, this)) {
                released(this);
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
     * @param principal who sent the turn, or {@code null} when the ingress does not say (issue 21 item 1)
     * @return the pending question, or {@code null} when a bound is reached ({@link #refusal} says which)
     */
    Pending open(String id, CallKey call, TurnState state, String principal, JsonNode schema) {
        if (pending.size() >= MAX_PENDING) {
            return null;
        }
        if (!take(perStream, call.streamId(), MAX_PER_STREAM)) {
            return null;
        }
        if (principal != null && !take(perPrincipal, principal, MAX_PER_PRINCIPAL)) {
            give(perStream, call.streamId());
            return null;
        }
        Pending p = new Pending(id, call, state, principal, schema);
        Pending before = pending.put(id, p);
        if (before != null && before != p) {
            // the same question asked again here while the first still waited (a turn run again): the
            // first is no longer found by its id, so what it counted is given back now
            released(before);
        }
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
                released(p);
                InputResponseEvent e = (InputResponseEvent) a.response();
                if (e.action() == InputAction.ACCEPT && !p.problems(e.content()).isEmpty()) {
                    // held before the question was raised, so nobody could check it then: never passed on
                    log.warn("question {}: the held answer's content does not match its schema; the tool reads a decline",
                            p.id);
                    metrics.invalid();
                    p.settle(new InputAnswer(InputAnswer.Outcome.DECLINE, null));
                } else {
                    p.settle(toAnswer(e));
                }
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
     * @return {@code APPLIED} (recorded), {@code HELD}, {@code INVALID_ANSWER} (accepted content that breaks
     *     the question's schema: not recorded, the question still waits) or {@code UNKNOWN_REQUEST} (no such
     *     question, expired, answered, another stream's, or not this principal's to answer)
     */
    Mono<ControlOutcome> answer(InputResponseEvent e, Principal principal, TurnState state, Duration hold) {
        String id = e.inputId();
        if (!ControlRequest.isDerivedId(id) || !id.startsWith(ControlRequest.INPUT_PREFIX)) {
            metrics.unknown(false);
            return Mono.just(ControlOutcome.UNKNOWN_REQUEST);
        }
        if (e.action() != InputAction.ACCEPT) {
            return record(e, principal, state, hold);
        }
        Pending p = pending.get(id);
        if (p != null) {
            // asked here: its schema is at hand
            if (p.streamId().equals(e.streamId()) && principal.mayAnswerFor(p.call.principal())
                    && !p.problems(e.content()).isEmpty()) {
                metrics.invalid();
                return Mono.just(ControlOutcome.INVALID_ANSWER);
            }
            return record(e, principal, state, hold);
        }
        // asked by another instance: its schema is in the request the state keeps (none yet: held, checked when applied)
        return Mono.defer(() -> state.requests().find(id))
                .map(s -> waitsFor(s, e, principal) && s.request().event() instanceof InputRequestEvent q
                        && !problems(q.schema(), e.content()).isEmpty())
                .defaultIfEmpty(false)
                .flatMap(invalid -> {
                    if (invalid) {
                        metrics.invalid();
                        return Mono.just(ControlOutcome.INVALID_ANSWER);
                    }
                    return record(e, principal, state, hold);
                });
    }

    /** Whether the state's question still waits for this principal's answer (else the answer is unknown, not invalid). */
    private boolean waitsFor(RequestState s, InputResponseEvent e, Principal principal) {
        return (s.status() == RequestState.Status.NEW || s.status() == RequestState.Status.PENDING)
                && s.request().streamId().equals(e.streamId()) && principal.mayAnswerFor(s.request().principal())
                && s.request().expiresAtMs() > timer.now(TimeUnit.MILLISECONDS)
                && s.request().calls().stream().allMatch(c -> s.answer(c) == null);
    }

    private Mono<ControlOutcome> record(InputResponseEvent e, Principal principal, TurnState state, Duration hold) {
        String id = e.inputId();
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

    /** Why {@link #open} refused a question of this stream and principal now (the bound it met). */
    String refusal(String streamId, String principal) {
        if (pending.size() >= MAX_PENDING) {
            return "too many questions wait for an answer (at most " + MAX_PENDING + " in all)";
        }
        if (perStream.getOrDefault(streamId, 0) >= MAX_PER_STREAM) {
            return "too many questions of this stream wait for an answer (at most " + MAX_PER_STREAM + " per stream)";
        }
        if (principal != null && perPrincipal.getOrDefault(principal, 0) >= MAX_PER_PRINCIPAL) {
            return "too many questions of this sender wait for an answer (at most " + MAX_PER_PRINCIPAL
                    + " per principal)";
        }
        return "too many questions wait for an answer";
    }

    /** The text of the error answering an {@link ControlOutcome#INVALID_ANSWER}. */
    String invalidText(InputResponseEvent e) {
        Pending p = pending.get(e.inputId());
        List<String> problems = p == null ? List.of() : p.problems(e.content());
        return "the content of input_response '" + e.inputId() + "' does not match the question's schema"
                + (problems.isEmpty() ? "" : ": " + String.join("; ", problems))
                + "; it was not passed to the tool, and the question still waits for an answer";
    }

    /** Questions of the stream waiting now (tests). */
    int waiting(String streamId) {
        return perStream.getOrDefault(streamId, 0);
    }

    private void released(Pending p) {
        give(perStream, p.streamId());
        if (p.principal != null) {
            give(perPrincipal, p.principal);
        }
    }

    /** One more for the key, unless it has {@code max}; keys at zero are not kept. */
    private static boolean take(ConcurrentHashMap<String, Integer> counts, String key, int max) {
        boolean[] taken = {false};
        counts.compute(key, (k, n) -> {
            int now = n == null ? 0 : n;
            if (now >= max) {
                return n;
            }
            taken[0] = true;
            return now + 1;
        });
        return taken[0];
    }

    private static void give(ConcurrentHashMap<String, Integer> counts, String key) {
        counts.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
    }

    /** What is wrong with accepted content by a schema (a schema the validator cannot compile checks nothing). */
    static List<String> problems(JsonNode schema, JsonNode content) {
        if (schema == null || !schema.isObject()) {
            return List.of();
        }
        com.networknt.schema.Schema s;
        try {
            s = JsonSchemas.compile(schema);
        } catch (RuntimeException e) {
            return List.of();
        }
        return problems(s, content);
    }

    private static List<String> problems(com.networknt.schema.Schema s, JsonNode content) {
        JsonNode value = content == null ? NullNode.getInstance() : content;
        List<String> out = new ArrayList<>(2);
        for (com.networknt.schema.Error e : s.validate(value)) {
            out.add(JsonSchemas.describe(e, value));
            if (out.size() == 3) {
                break;
            }
        }
        return out;
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
