package dev.toolbus.executor;

import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ControlIds;
import dev.toolbus.tool.Risk;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

/**
 * The approval requests waiting for an answer, executor-wide, by {@code approval_id}
 * ({@code ap-<instanceId>-<n>}). A request is claimed exactly once, by whichever comes first: its
 * answer, its expiry (a timer on the executor's timer scheduler), or the cancel of its last call.
 * Waiting calls hold nothing but their entry here (no slot, no thread); the number of requests is
 * bounded by the turns in flight, each request by its turn's calls.
 */
final class PendingApprovals {

    private static final Logger log = LoggerFactory.getLogger(PendingApprovals.class);

    /** A call waiting for the answer; each method is called at most once, and only one of them. */
    interface Waiter {
        void approved();

        void notApproved(String message);
    }

    /**
     * One waiting call.
     *
     * @param toolCallId the call
     * @param name the tool
     * @param risk its risk
     * @param argumentsSummary its arguments, redacted and bounded
     * @param waiter resumes or ends the call
     */
    record Entry(String toolCallId, String name, Risk risk, String argumentsSummary, Waiter waiter) {
    }

    /** What became of an answer. */
    enum Answer { APPLIED, UNKNOWN }

    private final String instanceId;
    private final ApprovalRules rules;
    private final ApprovalTexts texts;
    private final ApprovalMetrics metrics;
    private final Scheduler timer;
    private final AtomicLong seq = new AtomicLong();
    private final ConcurrentHashMap<String, Request> open = new ConcurrentHashMap<>();

    PendingApprovals(String instanceId, ApprovalRules rules, ApprovalTexts texts, ApprovalMetrics metrics,
                     Scheduler timer) {
        this.instanceId = instanceId;
        this.rules = rules;
        this.texts = texts;
        this.metrics = metrics;
        this.timer = timer;
    }

    /** One open request. */
    final class Request {
        final String id;
        final String streamId;
        final String turnId;
        final String userId;
        final long timeoutMs;
        private final List<Entry> entries;
        private volatile Disposable expiry;

        private Request(String id, String streamId, String turnId, String userId, long timeoutMs, List<Entry> entries) {
            this.id = id;
            this.streamId = streamId;
            this.turnId = turnId;
            this.userId = userId;
            this.timeoutMs = timeoutMs;
            this.entries = new ArrayList<>(entries);
        }

        /**
         * Takes one call out of the request (its turn or the call was cancelled); the request closes
         * when no call is left. Whether the call was still waiting.
         */
        boolean withdraw(Waiter w) {
            boolean empty;
            synchronized (this) {
                if (!entries.removeIf(e -> e.waiter() == w)) {
                    return false;
                }
                empty = entries.isEmpty();
            }
            metrics.cancelled.increment();
            if (empty && open.remove(id, this)) {
                disposeExpiry();
            }
            return true;
        }

        private synchronized List<Entry> drain() {
            List<Entry> out = List.copyOf(entries);
            entries.clear();
            return out;
        }

        private void disposeExpiry() {
            Disposable d = expiry;
            if (d != null) {
                d.dispose();
            }
        }
    }

    /**
     * Opens one request for the calls of a turn, publishes its {@code approval_request} and arms its
     * expiry.
     *
     * @param publish publishes the event on the turn's bus, live (before any of these calls' results)
     */
    Request open(String streamId, String turnId, String userId, List<Entry> entries,
                 Consumer<ApprovalRequestEvent> publish) {
        long timeoutMs = rules.settings().timeout().toMillis();
        String id = ControlIds.of(ControlIds.APPROVAL, instanceId, seq.incrementAndGet());
        Request r = new Request(id, streamId, turnId, userId, timeoutMs, entries);
        List<ApprovalRequestEvent.Call> calls = new ArrayList<>(entries.size());
        List<ApprovalTexts.Line> lines = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            calls.add(new ApprovalRequestEvent.Call(e.toolCallId(), e.name(), e.risk(), e.argumentsSummary()));
            lines.add(new ApprovalTexts.Line(e.name(), e.risk(), e.argumentsSummary()));
        }
        long expiresAt = timer.now(TimeUnit.MILLISECONDS) + timeoutMs;
        ApprovalRequestEvent event = new ApprovalRequestEvent(streamId, turnId, id, expiresAt, calls, texts.prompt(lines));
        metrics.asked.increment(entries.size());
        open.put(id, r);
        r.expiry = timer.schedule(() -> expire(r), timeoutMs, TimeUnit.MILLISECONDS);
        if (!open.containsKey(id)) {
            r.disposeExpiry();
        }
        publish.accept(event);
        return r;
    }

    /**
     * Applies an {@code approval_response}. An id nobody waits for (unknown, expired, answered, or
     * of another stream) is {@link Answer#UNKNOWN} and changes nothing.
     */
    Answer answer(String streamId, String approvalId, ApprovalDecision decision) {
        Request r = approvalId == null ? null : open.get(approvalId);
        if (r == null || !r.streamId.equals(streamId) || !open.remove(approvalId, r)) {
            return Answer.UNKNOWN;
        }
        r.disposeExpiry();
        for (Entry e : r.drain()) {
            try {
                switch (decision) {
                    case APPROVE -> {
                        metrics.approved.increment();
                        e.waiter().approved();
                    }
                    case APPROVE_SESSION -> {
                        metrics.approved.increment();
                        rules.grant(r.streamId, r.userId, e.name(), e.risk());
                        e.waiter().approved();
                    }
                    case DENY -> {
                        metrics.denied.increment();
                        e.waiter().notApproved(texts.denied());
                    }
                }
            } catch (RuntimeException ex) {
                log.error("resuming call {} after approval {} failed", e.toolCallId(), r.id, ex);
            }
        }
        return Answer.APPLIED;
    }

    /** Whether this instance waits for an answer to the id. */
    boolean isOpen(String approvalId) {
        return approvalId != null && open.containsKey(approvalId);
    }

    /** Requests waiting now. */
    int size() {
        return open.size();
    }

    private void expire(Request r) {
        if (!open.remove(r.id, r)) {
            return;
        }
        for (Entry e : r.drain()) {
            metrics.expired.increment();
            try {
                e.waiter().notApproved(texts.expired(r.timeoutMs));
            } catch (RuntimeException ex) {
                log.error("ending call {} after approval {} expired failed", e.toolCallId(), r.id, ex);
            }
        }
    }
}
