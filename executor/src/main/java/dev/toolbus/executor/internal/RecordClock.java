package dev.toolbus.executor.internal;

import java.time.Instant;
import java.util.concurrent.TimeUnit;
import reactor.core.scheduler.Scheduler;

/**
 * When a call ended, for its call-log record. With the system clocks, records that end within the
 * same millisecond of the nano clock share one {@link Instant} (the log keeps milliseconds), so a busy
 * executor reads the wall clock and allocates an {@code Instant} about once per millisecond, not once
 * per call. With injected clocks (tests, virtual time) every record reads the timer, as before.
 */
final class RecordClock {

    private static final long MILLI = 1_000_000;

    private final Scheduler timer;
    private final boolean shared;
    private volatile Stamp last;

    private record Stamp(long nanos, Instant at) {
    }

    private RecordClock(Scheduler timer, boolean shared) {
        this.timer = timer;
        this.shared = shared;
    }

    /** Reads {@code timer} for every record. */
    static RecordClock exact(Scheduler timer) {
        return new RecordClock(timer, false);
    }

    /** For the system clocks (the timer's wall clock and {@code System.nanoTime} agree): one read per millisecond. */
    static RecordClock system(Scheduler timer) {
        return new RecordClock(timer, true);
    }

    /** The wall-clock time of {@code nowNanos} (the executor's nano clock, just read). */
    Instant at(long nowNanos) {
        if (!shared) {
            return Instant.ofEpochMilli(timer.now(TimeUnit.MILLISECONDS));
        }
        Stamp s = last;
        if (s != null && nowNanos - s.nanos >= 0 && nowNanos - s.nanos < MILLI) {
            return s.at;
        }
        Instant at = Instant.ofEpochMilli(timer.now(TimeUnit.MILLISECONDS));
        last = new Stamp(nowNanos, at);
        return at;
    }
}
