package dev.toolbus.metrics;

/**
 * Names of the meters toolbus registers with Micrometer. Tags: {@code tool} (the tool name, or
 * {@code unknown} for names no tool has), {@code outcome} ({@code ok} or the error code in lower
 * case), {@code result} ({@code hit} or {@code miss}).
 */
public final class ToolMetrics {

    /** Counter of finished calls, tags tool and outcome. */
    public static final String CALLS = "toolbus.tool.calls";
    /** Timer of call durations with percentiles, tag tool. */
    public static final String DURATION = "toolbus.tool.duration";
    /** Gauge of handlers running now. */
    public static final String INFLIGHT = "toolbus.tool.inflight";
    /** Gauge of calls waiting for a slot. */
    public static final String QUEUED = "toolbus.tool.queued";
    /** Counter of retries, tag tool. */
    public static final String RETRIES = "toolbus.tool.retries";
    /** Counter of cache lookups, tag result. */
    public static final String CACHE_REQUESTS = "toolbus.cache.requests";
    /** Counter of completed turns. */
    public static final String TURNS = "toolbus.turns";
    /**
     * Counter of calls by approval outcome, tag outcome: {@code asked} (put in an approval request),
     * {@code approved}, {@code denied}, {@code expired}, {@code by_session_grant} (ran without asking
     * thanks to a grant), {@code ask_mode} (answered {@code NOT_APPROVED} in {@code ask} mode),
     * {@code cancelled} (its turn was cancelled while it waited).
     */
    public static final String APPROVALS = "toolbus.approvals";

    private ToolMetrics() {
    }
}
