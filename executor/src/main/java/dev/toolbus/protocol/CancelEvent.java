package dev.toolbus.protocol;

import java.util.Objects;

/**
 * Stops unfinished calls ({@code cancel}): one call, every unfinished call of a turn, or every queued
 * or running turn of the stream. Cancelled calls end as {@code CANCELLED} results in call order.
 *
 * @param streamId the conversation
 * @param turnId the turn, or {@code null} for every turn of the stream
 * @param toolCallId the call, or {@code null} for every unfinished call of the turn (needs a turn id)
 * @param reason why, for logs (may be empty)
 */
public record CancelEvent(String streamId, String turnId, String toolCallId, String reason) implements ControlEvent {

    public CancelEvent {
        Objects.requireNonNull(streamId, "streamId");
        if (toolCallId != null && turnId == null) {
            throw new IllegalArgumentException("a cancel naming a tool_call_id needs its turn_id");
        }
        reason = reason == null ? "" : reason;
    }
}
