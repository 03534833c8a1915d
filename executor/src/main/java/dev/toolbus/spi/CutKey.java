package dev.toolbus.spi;

import java.util.Objects;

/**
 * The key of a cut result's full text: the principal whose turn received the cut result, its stream and
 * the call's {@code tool_call_id}. {@code read_tool_result} reads only under the caller's own
 * principal and stream. Immutable.
 */
public final class CutKey {

    private final Principal principal;
    private final String streamId;
    private final String toolCallId;
    private volatile String hash;

    private CutKey(Principal principal, String streamId, String toolCallId) {
        this.principal = Objects.requireNonNull(principal, "principal");
        this.streamId = Objects.requireNonNull(streamId, "streamId");
        this.toolCallId = Objects.requireNonNull(toolCallId, "toolCallId");
    }

    /** The key. */
    public static CutKey of(Principal principal, String streamId, String toolCallId) {
        return new CutKey(principal, streamId, toolCallId);
    }

    /** Whose turn received the result. */
    public Principal principal() {
        return principal;
    }

    /** Its stream. */
    public String streamId() {
        return streamId;
    }

    /** The call that returned it. */
    public String toolCallId() {
        return toolCallId;
    }

    /** 64 hex digits: SHA-256 over the length-prefixed principal key, stream id and tool call id. */
    public String hash() {
        String h = hash;
        if (h == null) {
            h = KeyHash.hex(principal.key(), streamId, toolCallId);
            hash = h;
        }
        return h;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CutKey k && principal.equals(k.principal) && streamId.equals(k.streamId)
                && toolCallId.equals(k.toolCallId);
    }

    @Override
    public int hashCode() {
        return (31 * (31 * (31 + principal.hashCode()) + streamId.hashCode())) + toolCallId.hashCode();
    }

    @Override
    public String toString() {
        return "CutKey[" + principal.key() + ", " + streamId + ", " + toolCallId + "]";
    }
}
