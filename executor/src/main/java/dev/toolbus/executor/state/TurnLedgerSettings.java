package dev.toolbus.executor.state;

import static dev.toolbus.spi.Checks.requireRange;

import java.time.Duration;
import java.util.Objects;

/**
 * Bounds of the executor's in-memory ledger of idempotent turns (on the in-memory, stdio and gateway
 * buses, and on any bus that brings no ledger of its own). Immutable; built with a strict builder that
 * throws on a value out of range.
 *
 * <pre>{@code
 * TurnLedgerSettings ledger = TurnLedgerSettings.builder().window(Duration.ofMinutes(10)).maxEntries(50_000).build();
 * ToolExecutor executor = ToolExecutor.builder().idempotency(ledger).build();
 * }</pre>
 */
public final class TurnLedgerSettings {

    public static final long DEFAULT_WINDOW_MS = 3_600_000;
    public static final long DEFAULT_MAX_BYTES = 64L * 1024 * 1024;
    public static final long DEFAULT_MAX_ENTRIES = 100_000;
    public static final long DEFAULT_MAX_RECORDED_BYTES = 64 * 1024;

    /** 1 hour, 64 MiB, 100,000 turns, 64 KiB per turn. */
    public static final TurnLedgerSettings DEFAULTS = builder().build();

    /** Idempotent turns off: every turn runs, also a repeat. */
    public static final TurnLedgerSettings OFF = builder().window(Duration.ZERO).maxBytes(1).maxEntries(1)
            .maxRecordedBytes(0).build();

    private final Duration window;
    private final long maxBytes;
    private final long maxEntries;
    private final long maxRecordedBytes;

    private TurnLedgerSettings(Builder b) {
        this.window = b.window;
        this.maxBytes = b.maxBytes;
        this.maxEntries = b.maxEntries;
        this.maxRecordedBytes = b.maxRecordedBytes;
    }

    /** Starts a builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder initialised from these settings. */
    public Builder toBuilder() {
        return new Builder().window(window).maxBytes(maxBytes).maxEntries(maxEntries).maxRecordedBytes(maxRecordedBytes);
    }

    /** How long a finished turn is remembered (zero: idempotent turns off). */
    public Duration window() {
        return window;
    }

    /** The bytes all records (keys and encoded events) may take together in memory; the oldest go first. */
    public long maxBytes() {
        return maxBytes;
    }

    /** The most finished turns remembered. */
    public long maxEntries() {
        return maxEntries;
    }

    /** A turn whose events are larger is remembered without them: a repeat is not run and gets no events back. */
    public long maxRecordedBytes() {
        return maxRecordedBytes;
    }

    /** Whether finished turns are remembered at all. */
    public boolean enabled() {
        return !window.isZero();
    }

    /** These settings with another window. */
    public TurnLedgerSettings withWindow(Duration window) {
        return toBuilder().window(window).build();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TurnLedgerSettings s && window.equals(s.window) && maxBytes == s.maxBytes
                && maxEntries == s.maxEntries && maxRecordedBytes == s.maxRecordedBytes;
    }

    @Override
    public int hashCode() {
        return Objects.hash(window, maxBytes, maxEntries, maxRecordedBytes);
    }

    @Override
    public String toString() {
        return "TurnLedgerSettings[window=" + window + ", maxBytes=" + maxBytes + ", maxEntries=" + maxEntries
                + ", maxRecordedBytes=" + maxRecordedBytes + "]";
    }

    /** Builder of {@link TurnLedgerSettings}; every setter throws {@link IllegalArgumentException} on a value out of range. */
    public static final class Builder {
        private Duration window = Duration.ofMillis(DEFAULT_WINDOW_MS);
        private long maxBytes = DEFAULT_MAX_BYTES;
        private long maxEntries = DEFAULT_MAX_ENTRIES;
        private long maxRecordedBytes = DEFAULT_MAX_RECORDED_BYTES;

        private Builder() {
        }

        /** How long a finished turn is remembered: zero (off) or more (default 1 h). */
        public Builder window(Duration value) {
            Objects.requireNonNull(value, "window");
            if (value.isNegative()) {
                throw new IllegalArgumentException("window must not be negative, got " + value);
            }
            window = value;
            return this;
        }

        /** The bytes of all records, keys and encoded events: 1 and more (default 64 MiB). */
        public Builder maxBytes(long value) {
            maxBytes = requireRange(value, 1, Long.MAX_VALUE, "maxBytes");
            return this;
        }

        /** The most finished turns remembered: 1 and more (default 100000). */
        public Builder maxEntries(long value) {
            maxEntries = requireRange(value, 1, Long.MAX_VALUE, "maxEntries");
            return this;
        }

        /** The largest events of one turn that are remembered, in bytes: 0 and more (default 64 KiB). */
        public Builder maxRecordedBytes(long value) {
            maxRecordedBytes = requireRange(value, 0, Long.MAX_VALUE, "maxRecordedBytes");
            return this;
        }

        /** The settings. */
        public TurnLedgerSettings build() {
            return new TurnLedgerSettings(this);
        }
    }
}
