package dev.toolbus.executor.internal;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The handler runs holding a slot now (each knows when it started and its timeout): what
 * {@link ToolExecutor#health()} reads to tell a busy executor from a wedged one. One cell per slot,
 * so adding and removing a run allocates nothing; a run takes the first free cell.
 */
final class RunningCalls {

    /** How far past its timeout a run may still hold its slot before it counts as stuck. */
    static final long STUCK_GRACE_NANOS = 5_000_000_000L;

    private final AtomicReferenceArray<HandlerRun> runs;

    /** @param slots the executor's slots: at most that many runs hold one at a time */
    RunningCalls(int slots) {
        this.runs = new AtomicReferenceArray<>(slots);
    }

    /** Records a run that holds a slot (there is a free cell: every run here holds a slot). */
    void add(HandlerRun run) {
        for (int i = 0; i < runs.length(); i++) {
            if (runs.get(i) == null && runs.compareAndSet(i, null, run)) {
                run.cell = i;
                return;
            }
        }
        // not reached while each run holds a slot; health then just does not see this one
        run.cell = -1;
    }

    void remove(HandlerRun run) {
        if (run != null && run.cell >= 0) {
            runs.compareAndSet(run.cell, run, null);
        }
    }

    /** Runs holding a slot now (the executor's {@code inflight}: counted when read, not per call). */
    int count() {
        int n = 0;
        for (int i = 0; i < runs.length(); i++) {
            if (runs.get(i) != null) {
                n++;
            }
        }
        return n;
    }

    /** {running, oldest age in ms, stuck} at {@code nowNanos}. */
    long[] snapshot(long nowNanos) {
        long count = 0;
        long oldest = 0;
        long stuck = 0;
        for (int i = 0; i < runs.length(); i++) {
            HandlerRun r = runs.get(i);
            if (r == null) {
                continue;
            }
            long age = nowNanos - r.startNanos;
            count++;
            oldest = Math.max(oldest, age);
            if (age > r.timeoutNanos() + STUCK_GRACE_NANOS) {
                stuck++;
            }
        }
        return new long[] {count, oldest / 1_000_000, stuck};
    }
}
