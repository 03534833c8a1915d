package dev.toolbus.executor.limits;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.toolbus.spi.RateLimitStore;
import java.util.function.LongSupplier;
import reactor.core.publisher.Mono;

/** Token buckets in a bounded Caffeine cache; a bucket expires once it would be full again. */
final class MemoryBuckets implements RateLimitStore {

    private final Cache<String, Bucket> buckets;
    private final LongSupplier clock;

    MemoryBuckets(int maxKeys, LongSupplier clock) {
        this.clock = clock;
        this.buckets = Caffeine.newBuilder()
                .maximumSize(maxKeys)
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
    }

    @Override
    public Mono<Long> take(String key, int rate, long periodMs, int burst) {
        long now = clock.getAsLong();
        Bucket b = buckets.get(key, k -> new Bucket(burst, now, periodMs, rate));
        long wait = b.take(now, rate, periodMs, burst);
        return wait == 0 ? TAKEN : Mono.just(wait);
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
