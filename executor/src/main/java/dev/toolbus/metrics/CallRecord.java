package dev.toolbus.metrics;

import java.time.Instant;
import java.util.Objects;

/**
 * One finished call, as the recent-call log keeps it; text fields are cut to {@value #MAX_FIELD_CHARS}
 * characters (the detail to 200), so the log's size in bytes is bounded by its capacity. Immutable.
 *
 * <pre>{@code
 * for (CallRecord r : executor.callLog().recent(r -> r.outcome().equals("timeout"), 20)) {
 *     System.out.println(r.at() + " " + r.tool() + " " + r.durationMs() + " ms");
 * }
 * }</pre>
 */
public final class CallRecord {

    /** The longest text a record keeps per field; longer values are cut and end in {@code …}. */
    public static final int MAX_FIELD_CHARS = 128;
    private final Instant at;
    private final String tool;
    private final String streamId;
    private final String turnId;
    private final String toolCallId;
    private final String userId;
    private final String outcome;
    private final long durationMs;
    private final int attempts;
    private final boolean cached;
    private final String detail;
    private final String approval;

    /** Takes the builder's values, not the builder: so the builder does not escape {@link Builder#build()} (see docs/benchmarks.md). */
    private CallRecord(Instant at, String tool, String streamId, String turnId, String toolCallId, String userId,
                       String outcome, long durationMs, int attempts, boolean cached, String detail, String approval) {
        this.at = Objects.requireNonNull(at, "at");
        this.tool = cut(tool, MAX_FIELD_CHARS);
        this.streamId = cut(streamId, MAX_FIELD_CHARS);
        this.turnId = cut(turnId, MAX_FIELD_CHARS);
        this.toolCallId = cut(toolCallId, MAX_FIELD_CHARS);
        this.userId = cut(userId, MAX_FIELD_CHARS);
        this.outcome = cut(outcome, MAX_FIELD_CHARS);
        this.durationMs = durationMs;
        this.attempts = attempts;
        this.cached = cached;
        this.detail = cut(detail, 200);
        this.approval = cut(approval, MAX_FIELD_CHARS);
    }

    /** Starts a record of a call that finished at {@code at} (unset texts are empty). */
    public static Builder builder(Instant at) {
        return new Builder(at);
    }

    /** When the call finished. */
    public Instant at() {
        return at;
    }

    /** The tool name as called. */
    public String tool() {
        return tool;
    }

    /** The conversation. */
    public String streamId() {
        return streamId;
    }

    /** The turn. */
    public String turnId() {
        return turnId;
    }

    /** The call. */
    public String toolCallId() {
        return toolCallId;
    }

    /** The user, or empty. */
    public String userId() {
        return userId;
    }

    /** {@code ok} or the error code in lower case. */
    public String outcome() {
        return outcome;
    }

    /** Wall time in ms. */
    public long durationMs() {
        return durationMs;
    }

    /** Handler runs. */
    public int attempts() {
        return attempts;
    }

    /** Whether it was a cache hit. */
    public boolean cached() {
        return cached;
    }

    /** What ended the call when the outcome alone does not say it (e.g. {@code cancel event: user said stop}), else empty. */
    public String detail() {
        return detail;
    }

    /** What the approval step did: empty (no step, or the call ran without asking), {@code asked} (still waiting when the call ended, e.g. cancelled), {@code approved}, {@code approved_session}, {@code denied}, {@code expired}, {@code unsent} (the request could not be published), {@code by_session_grant}, {@code ask_mode}. */
    public String approval() {
        return approval;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CallRecord r && at.equals(r.at) && tool.equals(r.tool) && streamId.equals(r.streamId)
                && turnId.equals(r.turnId) && toolCallId.equals(r.toolCallId) && userId.equals(r.userId)
                && outcome.equals(r.outcome) && durationMs == r.durationMs && attempts == r.attempts
                && cached == r.cached && detail.equals(r.detail) && approval.equals(r.approval);
    }

    @Override
    public int hashCode() {
        return Objects.hash(at, tool, streamId, turnId, toolCallId, userId, outcome, durationMs, attempts, cached, detail,
                approval);
    }

    @Override
    public String toString() {
        return "CallRecord[at=" + at + ", tool=" + tool + ", streamId=" + streamId + ", turnId=" + turnId
                + ", toolCallId=" + toolCallId + ", userId=" + userId + ", outcome=" + outcome + ", durationMs="
                + durationMs + ", attempts=" + attempts + ", cached=" + cached + ", detail=" + detail + ", approval="
                + approval + "]";
    }

    private static String cut(String s, int max) {
        if (s == null) {
            return "";
        }
        if (s.length() <= max) {
            return s;
        }
        int end = max - 1;
        if (Character.isHighSurrogate(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(0, end) + "…";
    }

    /** Builder of {@link CallRecord}; texts are cut when built. */
    public static final class Builder {
        private final Instant at;
        private String tool;
        private String streamId;
        private String turnId;
        private String toolCallId;
        private String userId;
        private String outcome;
        private long durationMs;
        private int attempts;
        private boolean cached;
        private String detail;
        private String approval;

        private Builder(Instant at) {
            this.at = Objects.requireNonNull(at, "at");
        }

        /** The tool name as called. */
        public Builder tool(String v) {
            this.tool = v;
            return this;
        }

        /** The conversation. */
        public Builder streamId(String v) {
            this.streamId = v;
            return this;
        }

        /** The turn. */
        public Builder turnId(String v) {
            this.turnId = v;
            return this;
        }

        /** The call. */
        public Builder toolCallId(String v) {
            this.toolCallId = v;
            return this;
        }

        /** The user, or empty. */
        public Builder userId(String v) {
            this.userId = v;
            return this;
        }

        /** {@code ok} or the error code in lower case. */
        public Builder outcome(String v) {
            this.outcome = v;
            return this;
        }

        /** Wall time in ms. */
        public Builder durationMs(long v) {
            this.durationMs = v;
            return this;
        }

        /** Handler runs. */
        public Builder attempts(int v) {
            this.attempts = v;
            return this;
        }

        /** Whether it was a cache hit. */
        public Builder cached(boolean v) {
            this.cached = v;
            return this;
        }

        /** What ended the call when the outcome alone does not say it (e.g. {@code cancel event: user said stop}), else empty. */
        public Builder detail(String v) {
            this.detail = v;
            return this;
        }

        /** What the approval step did: empty (no step, or the call ran without asking), {@code asked} (still waiting when the call ended, e.g. cancelled), {@code approved}, {@code approved_session}, {@code denied}, {@code expired}, {@code unsent} (the request could not be published), {@code by_session_grant}, {@code ask_mode}. */
        public Builder approval(String v) {
            this.approval = v;
            return this;
        }

        /** The record. */
        public CallRecord build() {
            return new CallRecord(at, tool, streamId, turnId, toolCallId, userId, outcome, durationMs, attempts, cached,
                    detail, approval);
        }
    }
}
