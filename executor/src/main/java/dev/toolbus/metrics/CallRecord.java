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
    private final String principal;

    /**
     * Takes the builder's values (already cut, "" when unset), not the builder, and only stores them:
     * {@link Builder#build()} stays small once compiled, the JIT inlines it where the builder is made,
     * and the builder is never allocated there (see docs/benchmarks.md).
     */
    private CallRecord(Instant at, String tool, String streamId, String turnId, String toolCallId, String userId,
                       String outcome, long durationMs, int attempts, boolean cached, String detail, String approval,
                       String principal) {
        this.at = at;
        this.tool = tool;
        this.streamId = streamId;
        this.turnId = turnId;
        this.toolCallId = toolCallId;
        this.userId = userId;
        this.outcome = outcome;
        this.durationMs = durationMs;
        this.attempts = attempts;
        this.cached = cached;
        this.detail = detail;
        this.approval = approval;
        this.principal = principal;
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

    /**
     * The key of whom the turn was run for ({@code Principal.key()}, e.g. {@code token:team-a}), or empty
     * where the record was made without one. It comes from the configuration (a token's scope, a bus), never
     * from an event, and is kept whole: a scoped gateway token's {@code GET /v1/calls} shows the records of
     * its own principal only.
     */
    public String principal() {
        return principal;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CallRecord r && at.equals(r.at) && tool.equals(r.tool) && streamId.equals(r.streamId)
                && turnId.equals(r.turnId) && toolCallId.equals(r.toolCallId) && userId.equals(r.userId)
                && outcome.equals(r.outcome) && durationMs == r.durationMs && attempts == r.attempts
                && cached == r.cached && detail.equals(r.detail) && approval.equals(r.approval)
                && principal.equals(r.principal);
    }

    @Override
    public int hashCode() {
        return Objects.hash(at, tool, streamId, turnId, toolCallId, userId, outcome, durationMs, attempts, cached, detail,
                approval, principal);
    }

    @Override
    public String toString() {
        return "CallRecord[at=" + at + ", tool=" + tool + ", streamId=" + streamId + ", turnId=" + turnId
                + ", toolCallId=" + toolCallId + ", userId=" + userId + ", outcome=" + outcome + ", durationMs="
                + durationMs + ", attempts=" + attempts + ", cached=" + cached + ", detail=" + detail + ", approval="
                + approval + ", principal=" + principal + "]";
    }

    /** {@code s}, or "" for null, or its first {@code max - 1} characters and {@code …}; small, as the setters calling it must be. */
    private static String cut(String s, int max) {
        if (s == null) {
            return "";
        }
        return s.length() <= max ? s : cutLong(s, max);
    }

    private static String cutLong(String s, int max) {
        int end = max - 1;
        if (Character.isHighSurrogate(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(0, end) + "…";
    }

    /** Builder of {@link CallRecord}; texts are cut when set. */
    public static final class Builder {
        private final Instant at;
        private String tool = "";
        private String streamId = "";
        private String turnId = "";
        private String toolCallId = "";
        private String userId = "";
        private String outcome = "";
        private long durationMs;
        private int attempts;
        private boolean cached;
        private String detail = "";
        private String approval = "";
        private String principal = "";

        private Builder(Instant at) {
            this.at = Objects.requireNonNull(at, "at");
        }

        /** The tool name as called. */
        public Builder tool(String v) {
            this.tool = cut(v, MAX_FIELD_CHARS);
            return this;
        }

        /** The conversation. */
        public Builder streamId(String v) {
            this.streamId = cut(v, MAX_FIELD_CHARS);
            return this;
        }

        /** The turn. */
        public Builder turnId(String v) {
            this.turnId = cut(v, MAX_FIELD_CHARS);
            return this;
        }

        /** The call. */
        public Builder toolCallId(String v) {
            this.toolCallId = cut(v, MAX_FIELD_CHARS);
            return this;
        }

        /** The user, or empty. */
        public Builder userId(String v) {
            this.userId = cut(v, MAX_FIELD_CHARS);
            return this;
        }

        /** {@code ok} or the error code in lower case. */
        public Builder outcome(String v) {
            this.outcome = cut(v, MAX_FIELD_CHARS);
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
            this.detail = cut(v, 200);
            return this;
        }

        /** What the approval step did: empty (no step, or the call ran without asking), {@code asked} (still waiting when the call ended, e.g. cancelled), {@code approved}, {@code approved_session}, {@code denied}, {@code expired}, {@code unsent} (the request could not be published), {@code by_session_grant}, {@code ask_mode}. */
        public Builder approval(String v) {
            this.approval = cut(v, MAX_FIELD_CHARS);
            return this;
        }

        /** The key of whom the turn was run for ({@code Principal.key()}); kept whole, as it comes from the configuration. */
        public Builder principal(String v) {
            this.principal = v == null ? "" : v;
            return this;
        }

        /** The record. */
        public CallRecord build() {
            return new CallRecord(at, tool, streamId, turnId, toolCallId, userId, outcome, durationMs, attempts, cached,
                    detail, approval, principal);
        }
    }
}
