package dev.toolbus.policy;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which deferred tools {@code tool_search} returned on which stream. A found tool stays callable on
 * that stream until the stream has not searched or used found tools for {@code ttl}; at most
 * {@code maxStreams} streams are remembered (least recently used dropped first). In memory and per
 * process: lost on restart and not shared between instances.
 */
public final class ToolDiscovery {

    private final Cache<String, Set<String>> found;

    private ToolDiscovery(Duration ttl, long maxStreams) {
        this.found = Caffeine.newBuilder().expireAfterAccess(ttl).maximumSize(maxStreams).build();
    }

    /** A store with these bounds. */
    public static ToolDiscovery create(Duration ttl, long maxStreams) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero() || maxStreams < 1) {
            throw new IllegalArgumentException("ttl must be positive and maxStreams at least 1");
        }
        return new ToolDiscovery(ttl, maxStreams);
    }

    /** A store with the bounds of {@code search}. */
    public static ToolDiscovery create(PolicyConfig.Search search) {
        return create(search.discoveryTtl(), search.maxStreams());
    }

    /** Records that these tools were returned on this stream. */
    public void found(String streamId, Collection<String> names) {
        if (names.isEmpty()) {
            return;
        }
        found.get(key(streamId), k -> ConcurrentHashMap.newKeySet()).addAll(names);
    }

    /** Whether that tool was returned on this stream and has not expired. */
    public boolean isFound(String streamId, String name) {
        Set<String> s = found.getIfPresent(key(streamId));
        return s != null && s.contains(name);
    }

    /** Forgets a stream's discoveries. */
    public void forget(String streamId) {
        found.invalidate(key(streamId));
    }

    private static String key(String streamId) {
        return streamId == null ? "" : streamId;
    }
}
