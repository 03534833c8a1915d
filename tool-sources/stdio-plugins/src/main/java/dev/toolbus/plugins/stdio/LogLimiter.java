package dev.toolbus.plugins.stdio;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A token bucket over the bytes a plugin makes us log (its stderr lines, warnings about its stdout):
 * up to {@code bytesPerSecond} a second, with a burst of as much. A line that does not fit is dropped
 * and counted. Used by one reader thread.
 */
final class LogLimiter {

    private final long bytesPerSecond;
    private final LongSupplier nanoClock;
    private final AtomicLong droppedLines = new AtomicLong();
    private final AtomicLong droppedBytes = new AtomicLong();
    private final AtomicLong loggedBytes = new AtomicLong();
    private double tokens;
    private long last;
    private long droppedSinceReport;

    LogLimiter(long bytesPerSecond, LongSupplier nanoClock) {
        this.bytesPerSecond = bytesPerSecond;
        this.nanoClock = nanoClock;
        this.tokens = bytesPerSecond;
        this.last = nanoClock.getAsLong();
    }

    /** Whether a line of {@code bytes} may be logged now; when not, it is counted as dropped. */
    boolean admit(int bytes) {
        long now = nanoClock.getAsLong();
        tokens = Math.min(bytesPerSecond, tokens + (now - last) / 1e9 * bytesPerSecond);
        last = now;
        long cost = Math.max(1, bytes);
        if (tokens >= cost) {
            tokens -= cost;
            loggedBytes.addAndGet(cost);
            return true;
        }
        droppedLines.incrementAndGet();
        droppedBytes.addAndGet(cost);
        droppedSinceReport++;
        return false;
    }

    /** Lines dropped since the last call (for a summary line in the log), and resets that count. */
    long takeDroppedSinceReport() {
        long n = droppedSinceReport;
        droppedSinceReport = 0;
        return n;
    }

    long droppedLines() {
        return droppedLines.get();
    }

    long droppedBytes() {
        return droppedBytes.get();
    }

    long loggedBytes() {
        return loggedBytes.get();
    }
}
