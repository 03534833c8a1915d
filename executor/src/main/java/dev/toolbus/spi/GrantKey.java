package dev.toolbus.spi;

import java.util.Objects;

/**
 * A session grant's key: the principal that got it, the stream, the user the turn named and the tool.
 * A grant made for one principal is never honoured for another that asserts the same {@code user_id}.
 * Immutable.
 */
public final class GrantKey {

    private final Principal principal;
    private final String streamId;
    private final String userId;
    private final String tool;
    private volatile String hash;

    private GrantKey(Principal principal, String streamId, String userId, String tool) {
        this.principal = Objects.requireNonNull(principal, "principal");
        this.streamId = Objects.requireNonNull(streamId, "streamId");
        this.userId = Objects.requireNonNull(userId, "userId");
        this.tool = Objects.requireNonNull(tool, "tool");
    }

    /** The key. */
    public static GrantKey of(Principal principal, String streamId, String userId, String tool) {
        return new GrantKey(principal, streamId, userId, tool);
    }

    /** Who got it. */
    public Principal principal() {
        return principal;
    }

    /** Its stream. */
    public String streamId() {
        return streamId;
    }

    /** The user the turn named ({@code context.user_id}, empty when none). */
    public String userId() {
        return userId;
    }

    /** The tool. */
    public String tool() {
        return tool;
    }

    /** 64 hex digits: SHA-256 over the length-prefixed principal key, stream id, user id and tool name. */
    public String hash() {
        String h = hash;
        if (h == null) {
            h = KeyHash.hex(principal.key(), streamId, userId, tool);
            hash = h;
        }
        return h;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GrantKey k && principal.equals(k.principal) && streamId.equals(k.streamId)
                && userId.equals(k.userId) && tool.equals(k.tool);
    }

    @Override
    public int hashCode() {
        return Objects.hash(principal, streamId, userId, tool);
    }

    @Override
    public String toString() {
        return "GrantKey[" + principal.key() + ", " + streamId + ", " + userId + ", " + tool + "]";
    }
}
