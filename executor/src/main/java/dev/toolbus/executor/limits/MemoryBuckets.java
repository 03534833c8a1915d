package dev.toolbus.executor.limits;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Policy;
import dev.toolbus.spi.RateLimitStore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import reactor.core.publisher.Mono;

/**
 * Token buckets in a Caffeine cache, at most {@code maxKeys} of them. A bucket is forgotten only once it
 * would be full again (forgetting it then changes nothing), never to make room: when every bucket held
 * is still refilling, a call with a new key is refused until the first of them is full (issue 21: a flood
 * of user ids made the cache evict a victim's drained bucket, so the victim started again with a full
 * one).
 */
final class MemoryBuckets implements RateLimitStore {

    private final Cache<String, Bucket> buckets;
    private final Policy.VarExpiration<String, Bucket> expiry;
    private final LongSupplier clock;
    private final int maxKeys;
    private final Object newKeys = new Object();

    MemoryBuckets(int maxKeys, LongSupplier clock) {
        this.clock = clock;
        this.maxKeys = maxKeys;
        this.buckets = Caffeine.newBuilder()
                .ticker(clock::getAsLong)
                .executor(Runnable::run)
                .expireAfter(new Expiry<String, Bucket>() {
                    @Override
                    public long expireAfterCreate(String key, Bucket b, long now) {
                        return b.refillNanos;
                    }

                    @Override
                    public long expireAfterUpdate(String key, Bucket b, long now, long current) {
                        return b.refillNanos;
                    }

                    @Override
                    public long expireAfterRead(String key, Bucket b, long now, long current) {
                        return b.refillNanos;
                    }
                })
                .build();
        this.expiry = buckets.policy().expireVariably().orElseThrow();
    }

    @Override
    public Mono<Long> take(String key, int rate, long periodMs, int burst) {
        long now = clock.getAsLong();
        Bucket b = buckets.getIfPresent(key);
        if (b == null) {
            synchronized (newKeys) {
                b = buckets.getIfPresent(key);
                if (b == null) {
                    if (buckets.estimatedSize() >= maxKeys) {
                        buckets.cleanUp(); // forgets the buckets that are full again
                    }
                    if (buckets.estimatedSize() >= maxKeys) {
                        return Mono.just(untilRoom());
                    }
                    b = buckets.get(key, k -> new Bucket(burst, now, periodMs, rate));
                }
            }
        }
        long wait = b.take(now, rate, periodMs, burst);
        return wait == 0 ? TAKEN : Mono.just(wait);
    }

    /** Milliseconds until the bucket that is full first is forgotten (at least 1). */
    private long untilRoom() {
        java.util.Map<String, Bucket> first = expiry.oldest(1);
        if (first.isEmpty()) {
            return 1;
        }
        long ms = expiry.getExpiresAfter(first.keySet().iterator().next(), TimeUnit.MILLISECONDS).orElse(1L);
        return Math.max(1, ms);
    }

    /** Buckets held now (tests). */
    long size() {
        buckets.cleanUp();
        return buckets.estimatedSize();
    }

    /** One bucket; tokens are kept as a double, refilled on each take. */
    static final class Bucket {
        private double tokens;
        private long last;
        /** How long until an empty bucket is full: then forgetting it changes nothing. */
        final long refillNanos;

        Bucket(int burst, long now, long periodMs, int rate) {
            this.tokens = burst;
            this.last = now;
            this.refillNanos = Math.max(1_000_000L, (long) Math.ceil((double) burst * periodMs / rate * 1_000_000d));
        }

        synchronized long take(long now, int rate, long periodMs, int burst) {
            double perNano = (double) rate / (periodMs * 1_000_000d);
            if (now > last) {
                tokens = Math.min(burst, tokens + (now - last) * perNano);
                last = now;
            }
            tokens = Math.min(tokens, burst);
            if (tokens >= 1) {
                tokens -= 1;
                return 0;
            }
            double missingNanos = (1 - tokens) / perNano;
            return Math.max(1, (long) Math.ceil(missingNanos / 1_000_000d));
        }
    }
}
