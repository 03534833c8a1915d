package dev.toolbus.executor.approval;

import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.Risk;
import dev.toolbus.spi.CallKey;
import dev.toolbus.spi.ControlAnswer;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.GrantKey;
import dev.toolbus.spi.RequestState;
import dev.toolbus.spi.TurnState;
import dev.toolbus.text.Texts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

/**
 * The approval requests this instance owns and waits on, by their deterministic {@code approval_id}. The
 * answers live in the turn state ({@code ControlRequests}): whichever instance receives an answer records
 * it there, and this instance applies it when it learns of it ({@link #signal}: the answer was recorded
 * here, or the state said so). Each waiting call is resolved exactly once, by the first of: its call's
 * answer, the request's expiry (a timer on the executor's timer scheduler, which closes the request in the
 * state and still applies answers that won before), or its cancel. Waiting calls hold nothing but their
 * entry here (no slot, no thread).
 */
final class PendingApprovals {

    private static final Logger log = LoggerFactory.getLogger(PendingApprovals.class);

    /** A call waiting for the answer; exactly one method is called, once. */
    interface Waiter {
        /**
         * Run the call.
         *
         * @param session the answer was {@code approve_session}
         * @param answer the answer that approved it
         */
        void approved(boolean session, ControlAnswer answer);

        /**
         * End the call {@code NOT_APPROVED}.
         *
         * @param outcome {@code denied}, {@code expired} or {@code unsent} (for the call log)
         * @param message what the model reads
         */
        void notApproved(String outcome, String message);
    }

    /**
     * One waiting call.
     *
     * @param toolCallId the call
     * @param name the tool
     * @param risk its risk
     * @param argumentsSummary its arguments, redacted and bounded
     * @param userId the user its turn names (for a session grant)
     * @param reason why it asks when a rule over the call asked, else {@code ""}
     * @param waiter resumes or ends the call
     */
    record Entry(String toolCallId, String name, Risk risk, String argumentsSummary, String userId, String reason,
                 Waiter waiter) {
        /** A call the approval settings asked for (no rule's reason). */
        Entry(String toolCallId, String name, Risk risk, String argumentsSummary, String userId, Waiter waiter) {
            this(toolCallId, name, risk, argumentsSummary, userId, "", waiter);
        }
    }

    private final ApprovalRules rules;
    private final Texts texts;
    private final ApprovalMetrics metrics;
    private final Scheduler timer;
    private final ConcurrentHashMap<String, Request> open = new ConcurrentHashMap<>();

    PendingApprovals(ApprovalRules rules, Texts texts, ApprovalMetrics metrics, Scheduler timer) {
        this.rules = rules;
        this.texts = texts;
        this.metrics = metrics;
        this.timer = timer;
    }

    /** One request this instance waits on. */
    final class Request {
        final ControlRequest request;
        final TurnState state;
        /** The calls still waiting, by {@code tool_call_id}; guarded by this request's monitor. */
        private final Map<String, Entry> waiting = new LinkedHashMap<>();
        private final long timeoutMs;
        /** Gives back what the request holds (its turn's waiting bytes); run once, when it leaves {@code open}. */
        private final Runnable onClose;
        private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
        private volatile Disposable expiry;

        private Request(ControlRequest request, TurnState state, List<Entry> entries, long timeoutMs,
                        Runnable onClose) {
            this.request = request;
            this.state = state;
            this.onClose = onClose;
            this.timeoutMs = timeoutMs;
            for (Entry e : entries) {
                waiting.put(e.toolCallId(), e);
            }
        }

        /** Its id. */
        String id() {
            return request.id();
        }

        /**
         * Takes one call out of the request (its turn or the call was cancelled); the request closes when
         * no call is left. Whether the call was still waiting.
         */
        boolean withdraw(Waiter w) {
            boolean empty;
            synchronized (this) {
                if (!waiting.values().removeIf(e -> e.waiter() == w)) {
                    return false;
                }
                empty = waiting.isEmpty();
            }
            metrics.cancelled.increment();
            if (empty && open.remove(id(), this)) {
                closed();
                disposeExpiry();
                state.requests().close(id()).subscribe(null,
                        e -> log.debug("approval {}: closing it in the turn state failed: {}", id(), e.toString()));
            }
            return true;
        }

        /** Runs once the request left {@code open} (whoever removed it): gives back what it held. */
        private void closed() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            try {
                onClose.run();
            } catch (RuntimeException e) {
                log.error("closing approval {} failed", id(), e);
            }
        }

        private synchronized Entry take(String toolCallId) {
            return waiting.remove(toolCallId);
        }

        private synchronized List<Entry> takeAll() {
            List<Entry> out = new ArrayList<>(waiting.values());
            waiting.clear();
            return out;
        }

        private synchronized boolean done() {
            return waiting.isEmpty();
        }

        private void disposeExpiry() {
            Disposable d = expiry;
            if (d != null) {
                d.dispose();
            }
        }
    }

    /** {@link #open(ControlRequest, TurnState, List, Runnable)} with nothing to give back when it ends. */
    Request open(ControlRequest request, TurnState state, List<Entry> entries) {
        return open(request, state, entries, () -> { });
    }

    /**
     * Registers a request this instance waits on (before it is raised in the state, so an answer that
     * comes at once finds it). Its expiry is armed by {@link #arm} once the state says which it is.
     *
     * @param onClose run once when the request ends here, however it ends (answer, expiry, cancel, abandon,
     *     failure)
     */
    Request open(ControlRequest request, TurnState state, List<Entry> entries, Runnable onClose) {
        Request r = new Request(request, state, entries, rules.settings().timeout().toMillis(), onClose);
        Request before = open.put(request.id(), r);
        if (before != null && before != r) {
            // the same request raised again here while the first still waited: nobody can remove the first now
            before.closed();
        }
        return r;
    }

    /** Arms the request's expiry at {@code expiresAtMs} (epoch ms, the timer's clock). */
    void arm(Request r, long expiresAtMs) {
        long delay = Math.max(0, expiresAtMs - timer.now(TimeUnit.MILLISECONDS));
        r.expiry = timer.schedule(() -> expire(r), delay, TimeUnit.MILLISECONDS);
        if (open.get(r.id()) != r) {
            r.disposeExpiry();
        }
    }

    /**
     * Applies what the state knows of a request: each answered call is resolved by its answer; a closed
     * request's other calls end expired.
     */
    void apply(Request r, RequestState s) {
        for (Map.Entry<CallKey, ControlAnswer> a : s.answers().entrySet()) {
            Entry e = r.take(a.getKey().toolCallId());
            if (e != null) {
                resolve(r, e, a.getValue());
            }
        }
        if (s.status() == RequestState.Status.CLOSED) {
            for (Entry e : r.takeAll()) {
                metrics.expired.increment();
                notApproved(e, "expired", texts.approvalExpired(r.timeoutMs));
            }
        }
        if (r.done() && open.remove(r.id(), r)) {
            r.closed();
            r.disposeExpiry();
        }
    }

    /**
     * Resolves calls of this instance's requests by answers recorded for them under other requests
     * (a turn run again whose request covers fewer calls): {@code calls} are the waiting entries by call.
     */
    void resolveFound(TurnState state, Map<CallKey, ControlAnswer> found, Map<String, Entry> calls) {
        for (Map.Entry<CallKey, ControlAnswer> f : found.entrySet()) {
            Entry e = calls.get(f.getKey().toolCallId());
            if (e != null) {
                resolve(state, f.getKey(), e, f.getValue());
            }
        }
    }

    /** An answer of this id was recorded (here or elsewhere): applies it if this instance waits on the request. */
    void signal(String id) {
        Request r = id == null ? null : open.get(id);
        if (r == null) {
            return;
        }
        r.state.requests().find(id).subscribe(s -> apply(r, s),
                e -> log.warn("approval {}: reading its answer failed (its expiry applies it): {}", id, e.toString()));
    }

    /** Ends a request whose publish failed: its calls end {@code NOT_APPROVED}. */
    void abandon(Request r, String message) {
        if (!open.remove(r.id(), r)) {
            return;
        }
        r.closed();
        r.disposeExpiry();
        for (Entry e : r.takeAll()) {
            notApproved(e, "unsent", message);
        }
        r.state.requests().close(r.id()).subscribe(null, e -> { });
    }

    /** Ends a request whose raise failed: its calls end with that failure. */
    void fail(Request r, java.util.function.Consumer<Entry> end) {
        if (open.remove(r.id(), r)) {
            r.closed();
            r.disposeExpiry();
        }
        for (Entry e : r.takeAll()) {
            end.accept(e);
        }
    }

    /** Whether this instance waits on the id. */
    boolean isOpen(String approvalId) {
        return approvalId != null && open.containsKey(approvalId);
    }

    /** Requests waiting now. */
    int size() {
        return open.size();
    }

    /** The expiry fired: closes the request in the state (answers that won first still apply), the rest expire. */
    private void expire(Request r) {
        if (open.get(r.id()) != r) {
            return;
        }
        r.state.requests().close(r.id()).subscribe(s -> apply(r, s), e -> {
            log.warn("approval {}: closing it in the turn state failed; its calls expire here: {}", r.id(), e.toString());
            expireHere(r);
        }, () -> expireHere(r));
    }

    private void expireHere(Request r) {
        if (!open.remove(r.id(), r)) {
            return;
        }
        r.closed();
        for (Entry e : r.takeAll()) {
            metrics.expired.increment();
            notApproved(e, "expired", texts.approvalExpired(r.timeoutMs));
        }
    }

    private void resolve(Request r, Entry e, ControlAnswer a) {
        resolve(r.state, r.request.turn().call(e.toolCallId()), e, a);
    }

    private void resolve(TurnState state, CallKey call, Entry e, ControlAnswer a) {
        ApprovalDecision decision = ((ApprovalResponseEvent) a.response()).decision();
        try {
            switch (decision) {
                case APPROVE -> {
                    metrics.approved.increment();
                    e.waiter().approved(false, a);
                }
                case APPROVE_SESSION -> {
                    metrics.approved.increment();
                    if (rules.grantable(e.risk())) {
                        GrantKey k = GrantKey.of(call.principal(), call.streamId(), e.userId(), e.name());
                        state.grants().grant(k, ApprovalSettings.GRANT_TTL).subscribe(null,
                                x -> log.warn("session grant of {} not recorded: {}", e.name(), x.toString()));
                    }
                    e.waiter().approved(true, a);
                }
                case DENY -> {
                    metrics.denied.increment();
                    String why = ((ApprovalResponseEvent) a.response()).message();
                    e.waiter().notApproved("denied", why == null || why.isBlank() ? texts.approvalDeclined()
                            : texts.approvalDeclinedWith(why.strip()));
                }
            }
        } catch (RuntimeException ex) {
            log.error("resuming call {} after its approval failed", e.toolCallId(), ex);
        }
    }

    private static void notApproved(Entry e, String outcome, String message) {
        try {
            e.waiter().notApproved(outcome, message);
        } catch (RuntimeException ex) {
            log.error("ending call {} of an approval failed", e.toolCallId(), ex);
        }
    }
}
