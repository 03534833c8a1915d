package dev.toolbus.protocol;

/** Stable error codes of {@code tool_result.error.code} and {@code error} events. */
public enum ErrorCode {
    /** No tool of that name is registered. */
    UNKNOWN_TOOL,
    /** The tool exists but this session may not see or call it (policy). */
    NOT_AVAILABLE,
    /** The arguments are not valid JSON or violate the tool's schema. */
    INVALID_ARGUMENTS,
    /** The caller lacks the permission the tool requires. */
    PERMISSION_DENIED,
    /** The call did not finish within its timeout and was cancelled. */
    TIMEOUT,
    /** The handler threw. */
    TOOL_FAILED,
    /** The tool returned an error result. */
    TOOL_ERROR,
    /** The executor is overloaded or shutting down. */
    REJECTED,
    /** The call was cancelled before it finished. */
    CANCELLED,
    /** An event that could not be decoded. */
    BAD_EVENT,
    /** A media item above the configured size limit. */
    MEDIA_TOO_LARGE,
    /** A call that needed approval was denied, or not answered before its request expired. */
    NOT_APPROVED,
    /** A control event answering an approval or input id nobody waits for (unknown, expired, answered). */
    UNKNOWN_REQUEST,
    /**
     * A limit rule's token bucket is empty (or its shared store cannot be reached: fail closed); the
     * error's {@code retry_after_ms} says when a call may succeed.
     */
    RATE_LIMITED,
    /** A limit rule's per-turn cap: too many calls of one tool, or of its tools, in one turn. */
    LIMIT_EXCEEDED,
    /**
     * A rule over the call denied it (or could not be evaluated, failing closed), or its caller is not
     * one the tool allows ({@code allowed_callers}); the message says which.
     */
    NOT_ALLOWED,
    /** The tool's result {@code data} does not match its declared output schema; the message names the path. */
    INVALID_OUTPUT,
    /**
     * The turn was run again (after its instance died or stalled, or sent again) and this call, which is
     * not safe to run twice, had started before without finishing: it may or may not have taken effect,
     * and was not run again.
     */
    OUTCOME_UNKNOWN,
    /** The turn state (call journal, approval requests, questions) could not be read or written: the call did not start. */
    STATE_UNAVAILABLE
}
