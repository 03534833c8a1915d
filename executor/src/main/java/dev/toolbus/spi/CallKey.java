package dev.toolbus.spi;

import java.util.Objects;

/**
 * A call as the turn state knows it: its turn's {@link TurnKey} and its {@code tool_call_id}. The
 * journal, the approval answers and the questions of a call are kept under it. The
 * {@code idempotencyKey} tools see is not this key (it stays stream, turn and call, so tools that pass it
 * on keep its value). Immutable.
 */
public final class CallKey {

    private final TurnKey turn;
    private final String toolCallId;
    private volatile String hash;

    private CallKey(TurnKey turn, String toolCallId) {
        this.turn = Objects.requireNonNull(turn, "turn");
        this.toolCallId = Objects.requireNonNull(toolCallId, "toolCallId");
    }

    /** The key of a call of a turn. */
    public static CallKey of(TurnKey turn, String toolCallId) {
        return new CallKey(turn, toolCallId);
    }

    /** The key of a call. */
    public static CallKey of(Principal principal, String streamId, String turnId, String toolCallId) {
        return new CallKey(TurnKey.of(principal, streamId, turnId), toolCallId);
    }

    /** Its turn. */
    public TurnKey turn() {
        return turn;
    }

    /** Who sent its turn. */
    public Principal principal() {
        return turn.principal();
    }

    /** Its stream (the partition key of brokers that partition by stream). */
    public String streamId() {
        return turn.streamId();
    }

    /** Its turn id. */
    public String turnId() {
        return turn.turnId();
    }

    /** Its {@code tool_call_id}. */
    public String toolCallId() {
        return toolCallId;
    }

    /**
     * 64 hex digits: SHA-256 over the length-prefixed principal key, stream id, turn id and tool call id
     * (each part its UTF-8 length as four big-endian bytes, then its bytes).
     */
    public String hash() {
        String h = hash;
        if (h == null) {
            h = KeyHash.hex(turn.principal().key(), turn.streamId(), turn.turnId(), toolCallId);
            hash = h;
        }
        return h;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CallKey k && turn.equals(k.turn) && toolCallId.equals(k.toolCallId);
    }

    @Override
    public int hashCode() {
        return turn.hashCode() * 31 + toolCallId.hashCode();
    }

    @Override
    public String toString() {
        return "CallKey[" + turn.principal().key() + ", " + turn.streamId() + ", " + turn.turnId() + ", " + toolCallId
                + "]";
    }
}
