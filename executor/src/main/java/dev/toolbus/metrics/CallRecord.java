package dev.toolbus.metrics;

import java.time.Instant;

/**
 * One finished call, as the recent-call log keeps it; text fields are cut to {@value #MAX_FIELD_CHARS}
 * characters, so the log's size in bytes is bounded by its capacity.
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
 * @param approval what the approval step did: empty (no step, or the call ran without asking),
 *     {@code asked} (still waiting when the call ended, e.g. cancelled), {@code approved},
 *     {@code approved_session}, {@code denied}, {@code expired}, {@code unsent} (the request could not be
 *     published), {@code by_session_grant}, {@code ask_mode}
 */
public record CallRecord(Instant at, String tool, String streamId, String turnId, String toolCallId, String userId,
                         String outcome, long durationMs, int attempts, boolean cached, String detail,
                         String approval) {

    /** The longest text a record keeps per field; longer values are cut and end in {@code …}. */
    public static final int MAX_FIELD_CHARS = 128;

    /** Cuts every text field to {@link #MAX_FIELD_CHARS} (the detail to 200), so a record stays small. */
    public CallRecord {
        tool = cut(tool, MAX_FIELD_CHARS);
        streamId = cut(streamId, MAX_FIELD_CHARS);
        turnId = cut(turnId, MAX_FIELD_CHARS);
        toolCallId = cut(toolCallId, MAX_FIELD_CHARS);
        userId = cut(userId, MAX_FIELD_CHARS);
        outcome = cut(outcome, MAX_FIELD_CHARS);
        detail = detail == null ? "" : cut(detail, 200);
        approval = approval == null ? "" : cut(approval, MAX_FIELD_CHARS);
    }

    /** A record without an approval step. */
    public CallRecord(Instant at, String tool, String streamId, String turnId, String toolCallId, String userId,
                      String outcome, long durationMs, int attempts, boolean cached, String detail) {
        this(at, tool, streamId, turnId, toolCallId, userId, outcome, durationMs, attempts, cached, detail, "");
    }

    /** A record without detail. */
    public CallRecord(Instant at, String tool, String streamId, String turnId, String toolCallId, String userId,
                      String outcome, long durationMs, int attempts, boolean cached) {
        this(at, tool, streamId, turnId, toolCallId, userId, outcome, durationMs, attempts, cached, "");
    }

    private static String cut(String s, int max) {
        if (s == null || s.length() <= max) {
            return s;
        }
        int end = max - 1;
        if (Character.isHighSurrogate(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(0, end) + "…";
    }
}
