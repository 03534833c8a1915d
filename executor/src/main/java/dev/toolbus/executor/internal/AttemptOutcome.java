package dev.toolbus.executor.internal;

import dev.toolbus.tool.ToolResult;

/** How one handler run ended; {@link HandlerRun} hands it to its listener without allocating. */
enum AttemptOutcome {
    /** The handler gave a result (an empty Mono counts as an empty result). */
    RESULT,
    /** The handler failed (threw, or its Mono ended in an error). */
    FAILED,
    /** The timeout passed first. */
    TIMEOUT,
    /** The run was cancelled. */
    CANCELLED;

    /** Receives the ending of a run: exactly one call. */
    interface Listener {
        /**
         * @param outcome how it ended
         * @param result the result, for {@link #RESULT}
         * @param failure the exception, for {@link #FAILED}
         */
        void ended(AttemptOutcome outcome, ToolResult result, Throwable failure);

        /** The run's timeout in nanoseconds (for {@link RunningCalls}; the run does not keep a copy). */
        long timeoutNanos();
    }
}
