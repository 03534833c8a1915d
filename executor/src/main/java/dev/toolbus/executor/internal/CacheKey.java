package dev.toolbus.executor.internal;

import dev.toolbus.tool.ToolDefinition;

/**
 * A result cache key: the tool's definition (by identity, so a re-registered tool never meets the
 * entries of the definition it replaced), the stream and user where the scope is per stream and user,
 * and the arguments as canonical JSON text. Equal keys have equal parts; the hash only picks the bucket.
 */
final class CacheKey {

    private final ToolDefinition def;
    /** {@code null} unless the scope is per stream and user. */
    private final String streamId;
    private final String userId;
    private final String args;
    /** Whether every number of the arguments was read as an int or a long (the text reads back as the same nodes). */
    private final boolean exact;
    private final int hash;

    CacheKey(ToolDefinition def, String streamId, String userId, String args, boolean exact) {
        this(def, streamId, userId, args, exact, hash(def, streamId, userId, args));
    }

    /** A key with a given hash (tests force collisions with it). */
    CacheKey(ToolDefinition def, String streamId, String userId, String args, boolean exact, int hash) {
        this.def = def;
        this.streamId = streamId;
        this.userId = userId;
        this.args = args;
        this.exact = exact;
        this.hash = hash;
    }

    private static int hash(ToolDefinition def, String streamId, String userId, String args) {
        int h = System.identityHashCode(def);
        h = 31 * h + (streamId == null ? 0 : streamId.hashCode());
        h = 31 * h + (userId == null ? 0 : userId.hashCode());
        return 31 * h + args.hashCode();
    }

    /** The arguments' canonical JSON. */
    String args() {
        return args;
    }

    /** Whether the arguments' canonical text parses back to exactly the nodes the key was made of. */
    boolean exact() {
        return exact;
    }

    /** The characters the key holds (its weight in the cache is twice this). */
    long chars() {
        return (long) args.length() + (streamId == null ? 0 : streamId.length())
                + (userId == null ? 0 : userId.length());
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof CacheKey k)) {
            return false;
        }
        return hash == k.hash && def == k.def && args.equals(k.args) && same(streamId, k.streamId)
                && same(userId, k.userId);
    }

    private static boolean same(String a, String b) {
        return a == null ? b == null : a.equals(b);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return def.name() + (streamId == null ? "" : " " + streamId + "/" + userId) + " " + args;
    }
}
