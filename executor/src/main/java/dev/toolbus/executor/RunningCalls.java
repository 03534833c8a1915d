package dev.toolbus.executor;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The handler runs holding a slot now, with when they started and their timeout: what
 * {@link ToolExecutor#health()} reads to tell a busy executor from a wedged one. At most
 * {@code maxParallel} entries.
 */
final class RunningCalls {

    /** How far past its timeout a run may still hold its slot before it counts as stuck. */
    static final long STUCK_GRACE_NANOS = 5_000_000_000L;

    private final ConcurrentHashMap<Object, long[]> runs = new ConcurrentHashMap<>();

    void add(Object run, long startNanos, long timeoutNanos) {
        runs.put(run, new long[] {startNanos, timeoutNanos});
    }

    void remove(Object run) {
        if (run != null) {
            runs.remove(run);
        }
    }

    /** {running, oldest age in ms, stuck} at {@code nowNanos}. */
    long[] snapshot(long nowNanos) {
        long count = 0;
        long oldest = 0;
        long stuck = 0;
        for (long[] r : runs.values()) {
            long age = nowNanos - r[0];
            count++;
            oldest = Math.max(oldest, age);
            if (age > r[1] + STUCK_GRACE_NANOS) {
                stuck++;
            }
        }
        return new long[] {count, oldest / 1_000_000, stuck};
    }
}
