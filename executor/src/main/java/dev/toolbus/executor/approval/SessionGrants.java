package dev.toolbus.executor.approval;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.function.LongSupplier;

/**
 * {@code approve_session} grants: a tool approved for one user in one stream does not ask again while
 * the grant lasts (2 h from the grant, at most 2,000 grants: beyond that Caffeine evicts by its size policy).
 * Keys longer than 256 characters are stored as their SHA-256, so the cache is bounded in bytes too.
 */
final class SessionGrants {

    static final int MAX_KEY_CHARS = 256;

    private final Cache<String, Boolean> grants;

    SessionGrants(Duration ttl, int capacity, LongSupplier nanoClock) {
        this.grants = Caffeine.newBuilder()
                .expireAfterWrite(ttl)
                .maximumSize(capacity)
                .ticker(nanoClock::getAsLong)
                .executor(Runnable::run)
                .build();
    }

    void grant(String streamId, String userId, String tool) {
        grants.put(key(streamId, userId, tool), Boolean.TRUE);
    }

    boolean granted(String streamId, String userId, String tool) {
        return grants.getIfPresent(key(streamId, userId, tool)) != null;
    }

    long size() {
        grants.cleanUp();
        return grants.estimatedSize();
    }

    static String key(String streamId, String userId, String tool) {
        String k = streamId + '\u0000' + userId + '\u0000' + tool;
        if (k.length() <= MAX_KEY_CHARS) {
            return k;
        }
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(k.getBytes(StandardCharsets.UTF_8));
            return "#" + HexFormat.of().formatHex(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
