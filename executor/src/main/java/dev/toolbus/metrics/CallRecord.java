package dev.toolbus.metrics;

import java.time.Instant;

/**
 * One finished call, as the recent-call log keeps it.
 *
 * @param at when the call finished
 * @param tool the tool name as called
 * @param streamId the conversation
 * @param turnId the turn
 * @param toolCallId the call
 * @param userId the user, or empty
 * @param outcome {@code ok} or the error code in lower case
 * @param durationMs wall time
 * @param attempts handler runs
 * @param cached whether it was a cache hit
 * @param detail what ended the call when the outcome alone does not say it (e.g. {@code cancel event: user
 *     said stop}), else empty
 */
public record CallRecord(Instant at, String tool, String streamId, String turnId, String toolCallId, String userId,
                         String outcome, long durationMs, int attempts, boolean cached, String detail) {

    public CallRecord {
        detail = detail == null ? "" : detail;
    }

    /** A record without detail. */
    public CallRecord(Instant at, String tool, String streamId, String turnId, String toolCallId, String userId,
                      String outcome, long durationMs, int attempts, boolean cached) {
        this(at, tool, streamId, turnId, toolCallId, userId, outcome, durationMs, attempts, cached, "");
    }
}
