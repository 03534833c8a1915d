package dev.toolbus.config;

import dev.toolbus.executor.state.TurnLedgerSettings;
import dev.toolbus.spi.Checks;
import java.time.Duration;
import java.util.Objects;

/**
 * Idempotent turns in the executor ({@code bus.idempotency}): a turn whose {@code (stream_id, turn_id)} finished
 * within the window is answered with its recorded events marked {@code replayed}, and one that arrives while the
 * same turn runs joins it. Serves the in-memory, stdio and gateway buses and Kafka at least once; Redis and Kafka
 * exactly once keep their own records ({@code docs/buses.md}). Immutable; built with {@link #builder()}, which
 * starts from the defaults (docs/configuration.md).
 */
public final class IdempotencyConfig {

    /** The longest window: 7 days. */
    static final long MAX_WINDOW_MS = 7L * 24 * 3_600_000;
    /** The bounds of {@code maxBytes}: 1 KiB to 16 GiB. */
    static final long MIN_MAX_BYTES = 1024;
    static final long MAX_MAX_BYTES = 16L * 1024 * 1024 * 1024;
    /** The most turns a ledger may remember. */
    static final long MAX_MAX_ENTRIES = 100_000_000;
    /** The largest {@code maxRecordedBytes}: 64 MiB. */
    static final long MAX_RECORDED_BYTES = 64L * 1024 * 1024;

    /** 1 h, 64 MiB, 100,000 turns, 64 KiB. */
    public static final IdempotencyConfig DEFAULTS = builder().build();

    private final long windowMs;
    private final long maxBytes;
    private final long maxEntries;
    private final long maxRecordedBytes;

    private IdempotencyConfig(Builder b) {
        long windowMs = b.windowMs;
        long maxBytes = b.maxBytes;
        long maxEntries = b.maxEntries;
        long maxRecordedBytes = b.maxRecordedBytes;
        Checks.requireRange(windowMs, 0, MAX_WINDOW_MS, "bus.idempotency.windowMs");
        Checks.requireRange(maxBytes, MIN_MAX_BYTES, MAX_MAX_BYTES, "bus.idempotency.maxBytes");
        Checks.requireRange(maxEntries, 1, MAX_MAX_ENTRIES, "bus.idempotency.maxEntries");
        Checks.requireRange(maxRecordedBytes, 0, MAX_RECORDED_BYTES, "bus.idempotency.maxRecordedBytes");
        this.windowMs = windowMs;
        this.maxBytes = maxBytes;
        this.maxEntries = maxEntries;
        this.maxRecordedBytes = maxRecordedBytes;
    }

    /** Starts a builder from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this section's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.windowMs = windowMs;
        b.maxBytes = maxBytes;
        b.maxEntries = maxEntries;
        b.maxRecordedBytes = maxRecordedBytes;
        return b;
    }

    /** How long a finished turn is remembered, in ms (0: off). */
    public long windowMs() {
        return windowMs;
    }

    /** Estimated bytes of all records together. */
    public long maxBytes() {
        return maxBytes;
    }

    /** The most finished turns remembered. */
    public long maxEntries() {
        return maxEntries;
    }

    /** A turn with larger events is remembered without them (not run again, nothing replayed). */
    public long maxRecordedBytes() {
        return maxRecordedBytes;
    }

    /** The executor's settings. */
    public TurnLedgerSettings settings() {
        return TurnLedgerSettings.builder().window(Duration.ofMillis(windowMs)).maxBytes(maxBytes)
                .maxEntries(maxEntries).maxRecordedBytes(maxRecordedBytes).build();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IdempotencyConfig e && windowMs == e.windowMs && maxBytes == e.maxBytes
                && maxEntries == e.maxEntries && maxRecordedBytes == e.maxRecordedBytes;
    }

    @Override
    public int hashCode() {
        return Objects.hash(windowMs, maxBytes, maxEntries, maxRecordedBytes);
    }

    @Override
    public String toString() {
        return "IdempotencyConfig[windowMs=" + windowMs + ", maxBytes=" + maxBytes + ", maxEntries=" + maxEntries
                + ", maxRecordedBytes=" + maxRecordedBytes + "]";
    }

    /**
     * Builder of {@link IdempotencyConfig}, starting from the defaults.
     */
    public static final class Builder {
        private long windowMs = 3_600_000;
        private long maxBytes = 64L * 1024 * 1024;
        private long maxEntries = 100_000;
        private long maxRecordedBytes = 64 * 1024;

        private Builder() {
        }

        /** How long a finished turn is remembered, in ms: 0 (off) to 7 days. */
        public Builder windowMs(long windowMs) {
            this.windowMs = windowMs;
            return this;
        }

        /** Estimated bytes of all records together: 1 KiB to 16 GiB. */
        public Builder maxBytes(long maxBytes) {
            this.maxBytes = maxBytes;
            return this;
        }

        /** The most finished turns remembered: 1 to 100,000,000. */
        public Builder maxEntries(long maxEntries) {
            this.maxEntries = maxEntries;
            return this;
        }

        /** A turn with larger events is remembered without them: 0 to 64 MiB. */
        public Builder maxRecordedBytes(long maxRecordedBytes) {
            this.maxRecordedBytes = maxRecordedBytes;
            return this;
        }

        /**
         * The section.
         *
         * @throws IllegalArgumentException when a value is out of its range (the message names it and the
         *     range)
         */
        public IdempotencyConfig build() {
            return new IdempotencyConfig(this);
        }
    }
}
