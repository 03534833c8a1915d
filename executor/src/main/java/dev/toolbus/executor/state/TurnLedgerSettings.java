package dev.toolbus.executor.state;

import java.time.Duration;
import java.util.Objects;

/**
 * Bounds of the executor's in-memory {@link TurnLedger} (idempotent turns on the in-memory, stdio and
 * gateway buses, and on any bus that brings no ledger of its own).
 *
 * @param window how long a finished turn is remembered (zero: idempotent turns off)
 * @param maxBytes the estimated heap bytes all records may take together; the oldest go first
 * @param maxEntries the most finished turns remembered (each record weighs at least
 *     {@code maxBytes / maxEntries}, so neither bound is passed)
 * @param maxRecordedBytes a turn whose events are larger is remembered without them: a repeat is not run
 *     and gets no events back
 */
public record TurnLedgerSettings(Duration window, long maxBytes, long maxEntries, long maxRecordedBytes) {

    /** 1 hour, 64 MiB, 100,000 turns, 64 KiB per turn. */
    public static final TurnLedgerSettings DEFAULTS =
            new TurnLedgerSettings(Duration.ofHours(1), 64L * 1024 * 1024, 100_000, 64 * 1024);

    /** Idempotent turns off: every turn runs, also a repeat. */
    public static final TurnLedgerSettings OFF = new TurnLedgerSettings(Duration.ZERO, 1, 1, 0);

    public TurnLedgerSettings {
        Objects.requireNonNull(window, "window");
        if (window.isNegative()) {
            throw new IllegalArgumentException("window must not be negative, got " + window);
        }
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes must be at least 1, got " + maxBytes);
        }
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1, got " + maxEntries);
        }
        if (maxRecordedBytes < 0) {
            throw new IllegalArgumentException("maxRecordedBytes must not be negative, got " + maxRecordedBytes);
        }
    }

    /** Whether finished turns are remembered at all. */
    public boolean enabled() {
        return !window.isZero();
    }

    /** These settings with another window. */
    public TurnLedgerSettings withWindow(Duration window) {
        return new TurnLedgerSettings(window, maxBytes, maxEntries, maxRecordedBytes);
    }
}
