package dev.toolbus.executor.approval;

import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ControlIds;
import dev.toolbus.protocol.Risk;
import dev.toolbus.text.Texts;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
        /** Run the call; {@code session}: the answer was {@code approve_session}. */
        void approved(boolean session);

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
     * @param waiter resumes or ends the call
     */
    record Entry(String toolCallId, String name, Risk risk, String argumentsSummary, Waiter waiter) {
    }

    /** What became of an answer. */
    enum Answer { APPLIED, UNKNOWN }

    private final String instanceId;
    private final ApprovalRules rules;
    private final Texts texts;
    private final ApprovalMetrics metrics;
    private final Scheduler timer;
    private final AtomicLong seq = new AtomicLong();
    private final ConcurrentHashMap<String, Request> open = new ConcurrentHashMap<>();

    PendingApprovals(String instanceId, ApprovalRules rules, Texts texts, ApprovalMetrics metrics,
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
        /** The {@code approval_request} to publish. */
        final ApprovalRequestEvent event;
        private final List<Entry> entries;
        private volatile Disposable expiry;

        private Request(String id, String streamId, String turnId, String userId, long timeoutMs, List<Entry> entries,
                        ApprovalRequestEvent event) {
            this.id = id;
            this.event = event;
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
     * Opens one request for the calls of a turn and arms its expiry; the caller publishes
     * {@link Request#event} (and {@link #abandon}s the request if that fails).
     */
    Request open(String streamId, String turnId, String userId, List<Entry> entries) {
        long timeoutMs = rules.settings().timeout().toMillis();
        String id = ControlIds.of(ControlIds.APPROVAL, instanceId, seq.incrementAndGet());
        List<ApprovalRequestEvent.Call> calls = new ArrayList<>(entries.size());
        List<Texts.ApprovalLine> lines = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            calls.add(new ApprovalRequestEvent.Call(e.toolCallId(), e.name(), e.risk(), e.argumentsSummary()));
            lines.add(new Texts.ApprovalLine(e.name(), e.risk(), e.argumentsSummary()));
        }
        long expiresAt = timer.now(TimeUnit.MILLISECONDS) + timeoutMs;
        ApprovalRequestEvent event = new ApprovalRequestEvent(streamId, turnId, id, expiresAt, calls, texts.approvalPrompt(lines));
        Request r = new Request(id, streamId, turnId, userId, timeoutMs, entries, event);
        metrics.asked.increment(entries.size());
        open.put(id, r);
        r.expiry = timer.schedule(() -> end(r, metrics.expired, "expired", texts.approvalExpired(timeoutMs)), timeoutMs,
                TimeUnit.MILLISECONDS);
        if (!open.containsKey(id)) {
            r.disposeExpiry();
        }
        return r;
    }

    /** Ends a request that could not be sent: its calls end {@code NOT_APPROVED} with the message. */
    void abandon(Request r, String message) {
        if (end(r, null, "unsent", message)) {
            r.disposeExpiry();
        }
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
                        e.waiter().approved(false);
                    }
                    case APPROVE_SESSION -> {
                        metrics.approved.increment();
                        rules.grant(r.streamId, r.userId, e.name(), e.risk());
                        e.waiter().approved(true);
                    }
                    case DENY -> {
                        metrics.denied.increment();
                        e.waiter().notApproved("denied", texts.approvalDeclined());
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

    /** Claims the request and ends its calls {@code NOT_APPROVED}; whether this call claimed it. */
    private boolean end(Request r, io.micrometer.core.instrument.Counter counter, String outcome, String message) {
        if (!open.remove(r.id, r)) {
            return false;
        }
        for (Entry e : r.drain()) {
            if (counter != null) {
                counter.increment();
            }
            try {
                e.waiter().notApproved(outcome, message);
            } catch (RuntimeException ex) {
                log.error("ending call {} of approval {} failed", e.toolCallId(), r.id, ex);
            }
        }
        return true;
    }
}
