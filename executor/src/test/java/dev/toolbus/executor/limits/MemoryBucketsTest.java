package dev.toolbus.executor.limits;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.spi.RateLimitStore;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MemoryBucketsTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final MemoryBuckets buckets = new MemoryBuckets(50, now::get);

    private long take(String key, int rate, long periodMs, int burst) {
        return buckets.take(key, rate, periodMs, burst).block();
    }

    private void advanceMs(long ms) {
        now.addAndGet(ms * 1_000_000);
    }

    @Test
    void refillsContinuouslyUpToTheBurst() {
        assertThat(take("k", 3, 3000, 3)).isZero();
        assertThat(take("k", 3, 3000, 3)).isZero();
        assertThat(take("k", 3, 3000, 3)).isZero();
        assertThat(take("k", 3, 3000, 3)).isEqualTo(1000);
        advanceMs(400);
        assertThat(take("k", 3, 3000, 3)).isEqualTo(600);
        advanceMs(600);
        assertThat(take("k", 3, 3000, 3)).isZero();
        assertThat(take("k", 3, 3000, 3)).isEqualTo(1000);
        advanceMs(60_000);
        for (int i = 0; i < 3; i++) {
            assertThat(take("k", 3, 3000, 3)).isZero();
        }
        assertThat(take("k", 3, 3000, 3)).isPositive();
    }

    @Test
    void aGrantIsTheSharedConstant() {
        assertThat(buckets.take("g", 1, 1000, 1)).isSameAs(RateLimitStore.TAKEN);
    }

    @Test
    void keysAreBoundedAndAFullBucketIsForgotten() {
        for (int i = 0; i < 1000; i++) {
            take("user-" + i, 1, 1000, 1);
        }
        assertThat(buckets.size()).isLessThanOrEqualTo(50);
        advanceMs(1001);
        take("fresh", 1, 1000, 1);
        assertThat(buckets.size()).isEqualTo(1);
    }
}
