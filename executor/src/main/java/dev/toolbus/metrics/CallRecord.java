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
 */
public record CallRecord(Instant at, String tool, String streamId, String turnId, String toolCallId, String userId,
                         String outcome, long durationMs, int attempts, boolean cached) {

    /** The longest text a record keeps per field; longer values are cut and end in {@code …}. */
    public static final int MAX_FIELD_CHARS = 128;

    /** Cuts every text field to {@link #MAX_FIELD_CHARS}, so a record stays under about 1.5 KB. */
    public CallRecord {
        tool = cut(tool);
        streamId = cut(streamId);
        turnId = cut(turnId);
        toolCallId = cut(toolCallId);
        userId = cut(userId);
        outcome = cut(outcome);
    }

    private static String cut(String s) {
        if (s == null || s.length() <= MAX_FIELD_CHARS) {
            return s;
        }
        int end = MAX_FIELD_CHARS - 1;
        if (Character.isHighSurrogate(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(0, end) + "…";
    }
}
