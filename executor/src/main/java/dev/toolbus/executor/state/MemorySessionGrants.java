package dev.toolbus.executor.state;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.toolbus.spi.GrantKey;
import dev.toolbus.spi.SessionGrants;
import dev.toolbus.spi.TurnStateSettings;
import java.time.Duration;
import java.util.function.LongSupplier;
import reactor.core.publisher.Mono;

/**
 * The in-memory {@link SessionGrants}: grants by the hash of their key (fixed size, whatever the ids),
 * each expiring its own TTL after it was made, at most {@code grantsMaxEntries} (Caffeine's size policy
 * evicts beyond).
 */
final class MemorySessionGrants implements SessionGrants {

    /** Estimated bytes of one grant: a 64-character key, a boxed TTL and the cache's node. */
    static final long GRANT_BYTES = 64 * 2 + 160;

    private final Cache<String, Long> grants;

    MemorySessionGrants(TurnStateSettings s, LongSupplier nanoClock) {
        this.grants = Caffeine.newBuilder()
                .expireAfter(Expiry.writing((String k, Long ttl) -> Duration.ofNanos(ttl)))
                .maximumSize(s.grantsMaxEntries())
                .ticker(nanoClock::getAsLong)
                .executor(Runnable::run)
                .build();
    }

    @Override
    public Mono<Void> grant(GrantKey key, Duration ttl) {
        return Mono.fromRunnable(() -> grants.put(key.hash(), ttl.toNanos()));
    }

    @Override
    public Mono<Boolean> has(GrantKey key) {
        return Mono.fromSupplier(() -> grants.getIfPresent(key.hash()) != null);
    }

    /** Grants kept. */
    long size() {
        grants.cleanUp();
        return grants.estimatedSize();
    }
}
