package dev.toolbus.executor;

import dev.toolbus.tool.ToolResult;

/**
 * How one handler run ended.
 *
 * @param kind the ending
 * @param result the result, for {@link Kind#RESULT}
 * @param failure the exception, for {@link Kind#FAILED}
 */
record AttemptOutcome(Kind kind, ToolResult result, Throwable failure) {

    enum Kind { RESULT, FAILED, TIMEOUT, CANCELLED }

    static final AttemptOutcome TIMED_OUT = new AttemptOutcome(Kind.TIMEOUT, null, null);
    static final AttemptOutcome CANCELLED = new AttemptOutcome(Kind.CANCELLED, null, null);

    static AttemptOutcome result(ToolResult r) {
        return new AttemptOutcome(Kind.RESULT, r, null);
    }

    static AttemptOutcome failed(Throwable t) {
        return new AttemptOutcome(Kind.FAILED, null, t);
    }
}
