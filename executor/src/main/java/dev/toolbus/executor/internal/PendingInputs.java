package dev.toolbus.executor.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.toolbus.internal.JsonSchemas;
import dev.toolbus.protocol.ControlIds;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.tool.InputAnswer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.Disposable;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * The questions tools asked that wait for an answer, by input id ({@code in-<instanceId>-<n>}). Each
 * resolves exactly once: answered, expired (on the timer), cancelled with its call, or failed. Bounded
 * in entries: in all, per stream and per principal (so one plugin cannot fill the executor-wide cap and
 * keep every other stream's tools from asking); {@link CallEvents} bounds each call's own.
 */
final class PendingInputs {

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
        final String principal;
        /** The schema the answer's content must match, or {@code null}. */
        final JsonNode schema;
        final Sinks.One<InputAnswer> answer = Sinks.one();
        private volatile Disposable expiry;
        private volatile com.networknt.schema.Schema compiled;

        Pending(String id, String streamId, String principal, JsonNode schema) {
            this.id = id;
            this.streamId = streamId;
            this.principal = principal;
            this.schema = schema;
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

        /** Ends the question with an error (it could not be published), if it is still waiting. */
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
     * Registers a question of the stream that expires after {@code timeoutMs}.
     *
     * @param principal who sent the turn, or {@code null} when the ingress does not say (issue 21 item 1)
     * @return the pending question, or {@code null} when a bound is reached ({@link #refusal} says which)
     */
    Pending open(String streamId, String principal, long timeoutMs, JsonNode schema) {
        if (pending.size() >= MAX_PENDING) {
            return null;
        }
        if (!take(perStream, streamId, MAX_PER_STREAM)) {
            return null;
        }
        if (principal != null && !take(perPrincipal, principal, MAX_PER_PRINCIPAL)) {
            give(perStream, streamId);
            return null;
        }
        Pending p = new Pending(ControlIds.of(ControlIds.INPUT, instanceId, seq.incrementAndGet()), streamId,
                principal, schema);
        pending.put(p.id, p);
        metrics.asked();
        p.expiry = timer.schedule(() -> p.resolve(InputAnswer.Outcome.EXPIRED), timeoutMs, TimeUnit.MILLISECONDS);
        if (!pending.containsKey(p.id)) {
            p.stopTimer();
        }
        return p;
    }

    /**
     * An {@code input_response}: applied; unknown (no such id, answered, expired, or another stream's);
     * or invalid (accepted content that breaks the question's schema: not passed on, the question waits).
     */
    ControlOutcome answer(InputResponseEvent e) {
        Pending p = pending.get(e.inputId());
        if (p != null && p.streamId.equals(e.streamId()) && e.action() == dev.toolbus.protocol.InputAction.ACCEPT
                && !p.problems(e.content()).isEmpty()) {
            metrics.invalid();
            return ControlOutcome.INVALID_ANSWER;
        }
        if (p == null || !p.streamId.equals(e.streamId()) || !pending.remove(e.inputId(), p)) {
            metrics.unknown(false);
            return ControlOutcome.UNKNOWN_REQUEST;
        }
        released(p);
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
        give(perStream, p.streamId);
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
}
