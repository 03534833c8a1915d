package dev.toolbus.spi;

import java.util.Objects;

/**
 * A turn as the turn state knows it: its principal, stream and turn id. The same turn id on the same
 * stream from another principal is another turn (never replayed or joined). {@link #hash()} is what
 * stores key it by: no two keys share it, whatever characters the ids hold. Immutable.
 */
public final class TurnKey {

    private final Principal principal;
    private final String streamId;
    private final String turnId;
    private volatile String hash;
    /** {@link #hashCode()}, once computed (0 until then; racy but idempotent, as {@code String}'s). */
    private int hashCode;

    private TurnKey(Principal principal, String streamId, String turnId) {
        this.principal = Objects.requireNonNull(principal, "principal");
        this.streamId = Objects.requireNonNull(streamId, "streamId");
        this.turnId = Objects.requireNonNull(turnId, "turnId");
    }

    /** The key of a turn. */
    public static TurnKey of(Principal principal, String streamId, String turnId) {
        return new TurnKey(principal, streamId, turnId);
    }

    /** The key of one of its calls. */
    public CallKey call(String toolCallId) {
        return CallKey.of(this, toolCallId);
    }

    /** Who sent the turn. */
    public Principal principal() {
        return principal;
    }

    /** Its stream (the partition key of brokers that partition by stream). */
    public String streamId() {
        return streamId;
    }

    /** Its turn id. */
    public String turnId() {
        return turnId;
    }

    /**
     * 64 hex digits: SHA-256 over the length-prefixed principal {@link Principal#key() key}, stream id and
     * turn id (each part its UTF-8 length as four big-endian bytes, then its bytes).
     */
    public String hash() {
        String h = hash;
        if (h == null) {
            h = KeyHash.hex(principal.key(), streamId, turnId);
            hash = h;
        }
        return h;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TurnKey k && principal.equals(k.principal) && streamId.equals(k.streamId)
                && turnId.equals(k.turnId);
    }

    @Override
    public int hashCode() {
        int h = hashCode;
        if (h == 0) {
            // as Objects.hash, without its array (a bus looks a turn's key up several times)
            h = (31 * (31 * (31 + principal.hashCode()) + streamId.hashCode())) + turnId.hashCode();
            hashCode = h;
        }
        return h;
    }

    @Override
    public String toString() {
        return "TurnKey[" + principal.key() + ", " + streamId + ", " + turnId + "]";
    }
}
