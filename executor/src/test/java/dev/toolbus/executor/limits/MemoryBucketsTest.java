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

    /**
     * Issue 21, low: a flood of user ids could reset a victim's bucket (the cache evicted it to make
     * room, and the victim's next call found a full one). Only full buckets are forgotten now; while
     * every bucket held is still refilling, new keys wait.
     */
    @Test
    void aFloodOfNewKeysNeverResetsADrainedBucket() {
        assertThat(take("victim", 1, 60_000, 1)).isZero();
        assertThat(take("victim", 1, 60_000, 1)).isPositive();
        long refused = 0;
        for (int i = 0; i < 10_000; i++) {
            advanceMs(1);
            if (take("flood-" + i, 1, 60_000, 1) > 0) {
                refused++;
            }
        }
        assertThat(buckets.size()).isLessThanOrEqualTo(50);
        assertThat(refused).as("new keys beyond the 50 held wait").isEqualTo(10_000 - 49);
        assertThat(take("victim", 1, 60_000, 1)).as("the victim's bucket is still drained").isPositive();
        long wait = take("one-more", 1, 60_000, 1);
        // the victim's read just now keeps its bucket longer: the first flood bucket (taken at 1 ms) goes first
        assertThat(wait).as("until the oldest bucket is full again").isEqualTo(60_000 + 1 - 10_000);
        advanceMs(wait);
        assertThat(take("one-more", 1, 60_000, 1)).isZero();
    }
}
