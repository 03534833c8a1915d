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
    /**
     * Timer of tool calls by the OpenTelemetry GenAI semantic conventions (seconds, a histogram with the
     * conventions' GenAI duration buckets, 10 ms to 81.92 s), recorded only while calls are observed (an
     * {@code ObservationRegistry} other than {@code NOOP}): the same time as the call's
     * {@code execute_tool} span. Tags {@code gen_ai.operation.name} ({@code execute_tool}),
     * {@code gen_ai.tool.name}, {@code gen_ai.tool.type}, and {@code error.type} (the error code in lower
     * case) on failed calls only.
     */
    public static final String EXECUTE_TOOL_DURATION = "gen_ai.execute_tool.duration";
    /** Counter of completed turns. */
    public static final String TURNS = "toolbus.turns";
    /** Counter of cancel requests, tags source ({@code event}, {@code subscriber}) and outcome ({@code applied}, {@code nothing_to_do}). */
    public static final String CONTROL_CANCELS = "toolbus.control.cancels";
    /** Counter of {@code tool_progress} events, tag result ({@code published}, {@code dropped}). */
    public static final String CONTROL_PROGRESS = "toolbus.control.progress";
    /** Counter of {@code send_message} events published. */
    public static final String CONTROL_MESSAGES = "toolbus.control.messages";
    /** Counter of tools' questions, tag outcome ({@code asked}, {@code accept}, {@code decline}, {@code cancel}, {@code expired}). */
    public static final String CONTROL_INPUTS = "toolbus.control.inputs";
    /** Counter of answers to approval or input ids nobody waits for, tag kind ({@code approval}, {@code input}). */
    public static final String CONTROL_UNKNOWN = "toolbus.control.unknown";
    /**
     * Counter of calls by approval outcome, tag outcome: {@code asked} (put in an approval request),
     * {@code approved}, {@code denied}, {@code expired}, {@code by_session_grant} (ran without asking
     * thanks to a grant), {@code ask_mode} (answered {@code NOT_APPROVED} in {@code ask} mode),
     * {@code cancelled} (its turn was cancelled while it waited), {@code programmatic} (a call made by code
     * the model runs that needed approval, answered {@code NOT_APPROVED} at once).
     */
    public static final String CONTROL_APPROVALS = "toolbus.control.approvals";
    /**
     * Counter of calls a limit rule refused, tags rule and reason: {@code rate} (its token bucket was
     * empty: {@code RATE_LIMITED}), {@code turn} (a per-turn cap: {@code LIMIT_EXCEEDED}), {@code store}
     * (the shared bucket store could not answer: {@code RATE_LIMITED}, fail closed).
     */
    public static final String LIMITS_REFUSED = "toolbus.limits.refused";
    /** Counter of calls that waited for a concurrency permit of a rule, tag rule. */
    public static final String LIMITS_WAITED = "toolbus.limits.waited";
    /** Gauge of calls holding a concurrency permit of a rule now, tag rule. */
    public static final String LIMITS_RUNNING = "toolbus.limits.concurrency";
    /** Gauge of calls waiting for a concurrency permit of a rule now, tag rule. */
    public static final String LIMITS_WAITING = "toolbus.limits.waiting";
    /**
     * Counter of turns that arrived again and were not run (idempotent turns), tag outcome:
     * {@code replayed} (finished: its recorded events were published again) or {@code joined} (it was running).
     */
    public static final String TURNS_REPEATED = "toolbus.turns.repeated";
    /**
     * Gauge: records the turn state keeps, tagged {@code facet} ({@code ledger}, {@code journal},
     * {@code requests}, {@code grants}, {@code cut_results}).
     */
    public static final String STATE_RECORDS = "toolbus.state.records";
    /** Gauge: their estimated bytes, tagged {@code facet}. */
    public static final String STATE_BYTES = "toolbus.state.bytes";
    /** Counter: calls the journal answered instead of running them, tagged {@code outcome} ({@code replayed}, {@code outcome_unknown}). */
    public static final String STATE_JOURNAL = "toolbus.state.journal";

    private ToolMetrics() {
    }
}
