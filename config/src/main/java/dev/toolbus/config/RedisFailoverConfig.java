package dev.toolbus.config;

import dev.toolbus.spi.Checks;
import java.util.Objects;

/**
 * How a Redis bus moves the turns of an instance that died or stalled to another ({@code bus.redis};
 * docs/buses.md "Failover"). A turn read by an instance stays pending with it; another instance takes it over
 * ({@code XAUTOCLAIM}) once it has been idle {@link #claimMinIdleMs()}, and the running-turn claim of an
 * idempotent turn lapses after the same time. The owner renews both every {@link #claimIntervalMs()} while the
 * turn runs. Immutable; built with {@link #builder()}, which starts from the defaults (docs/configuration.md).
 */
public final class RedisFailoverConfig {

    static final long MIN_IDLE_MS = 1_000;
    static final long MAX_IDLE_MS = 86_400_000;
    static final long MIN_INTERVAL_MS = 100;
    static final long MAX_INTERVAL_MS = 3_600_000;
    static final int MAX_BATCH = 10_000;

    /** 30 s, 5 s, 100 turns (the Redis bus's own defaults). */
    public static final RedisFailoverConfig DEFAULTS = builder().build();

    private final long claimMinIdleMs;
    private final long claimIntervalMs;
    private final int claimBatch;

    private RedisFailoverConfig(Builder b) {
        Checks.requireRange(b.claimMinIdleMs, MIN_IDLE_MS, MAX_IDLE_MS, "bus.redis.claimMinIdleMs");
        Checks.requireRange(b.claimIntervalMs, MIN_INTERVAL_MS, MAX_INTERVAL_MS, "bus.redis.claimIntervalMs");
        Checks.requireRange(b.claimBatch, 1, MAX_BATCH, "bus.redis.claimBatch");
        Checks.requireArgument(b.claimIntervalMs * 2 <= b.claimMinIdleMs, "bus.redis.claimIntervalMs ("
                + b.claimIntervalMs + ") must be at most half of claimMinIdleMs (" + b.claimMinIdleMs
                + "): a live instance's leases could lapse between renewals");
        this.claimMinIdleMs = b.claimMinIdleMs;
        this.claimIntervalMs = b.claimIntervalMs;
        this.claimBatch = b.claimBatch;
    }

    /** Starts a builder from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this section's values. */
    public Builder toBuilder() {
        return new Builder().claimMinIdleMs(claimMinIdleMs).claimIntervalMs(claimIntervalMs).claimBatch(claimBatch);
    }

    /**
     * How long a turn waits before another instance takes it over: lower moves a dead instance's turns sooner,
     * but an instance stalled longer than this (a GC pause, an overloaded host) loses its turns: a retry-safe
     * call may run again elsewhere, a side-effecting one that had started ends {@code OUTCOME_UNKNOWN}.
     */
    public long claimMinIdleMs() {
        return claimMinIdleMs;
    }

    /**
     * How often each instance takes over idle turns and renews its own leases (a turn moves after
     * {@code claimMinIdleMs} plus up to this), at the cost of one {@code XAUTOCLAIM} and one renewal per interval
     * and instance; at most half of {@code claimMinIdleMs}.
     */
    public long claimIntervalMs() {
        return claimIntervalMs;
    }

    /** The most turns one {@code XAUTOCLAIM} takes over. */
    public int claimBatch() {
        return claimBatch;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RedisFailoverConfig r && claimMinIdleMs == r.claimMinIdleMs
                && claimIntervalMs == r.claimIntervalMs && claimBatch == r.claimBatch;
    }

    @Override
    public int hashCode() {
        return Objects.hash(claimMinIdleMs, claimIntervalMs, claimBatch);
    }

    @Override
    public String toString() {
        return "RedisFailoverConfig[claimMinIdleMs=" + claimMinIdleMs + ", claimIntervalMs=" + claimIntervalMs
                + ", claimBatch=" + claimBatch + "]";
    }

    /** Builder of {@link RedisFailoverConfig}, starting from the defaults. */
    public static final class Builder {
        private long claimMinIdleMs = 30_000;
        private long claimIntervalMs = 5_000;
        private int claimBatch = 100;

        private Builder() {
        }

        /** How long a turn waits before another instance takes it over, in ms: 1 s to 24 h. */
        public Builder claimMinIdleMs(long claimMinIdleMs) {
            this.claimMinIdleMs = claimMinIdleMs;
            return this;
        }

        /** How often idle turns are taken over and leases renewed, in ms: 100 ms to 1 h, at most half the idle time. */
        public Builder claimIntervalMs(long claimIntervalMs) {
            this.claimIntervalMs = claimIntervalMs;
            return this;
        }

        /** The most turns one {@code XAUTOCLAIM} takes over: 1 to 10,000. */
        public Builder claimBatch(int claimBatch) {
            this.claimBatch = claimBatch;
            return this;
        }

        /**
         * The section.
         *
         * @throws IllegalArgumentException when a value is out of its range or the interval is more than half
         *     the idle time (the message names it)
         */
        public RedisFailoverConfig build() {
            return new RedisFailoverConfig(this);
        }
    }
}
