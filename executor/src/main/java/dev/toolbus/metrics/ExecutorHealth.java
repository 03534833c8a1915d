package dev.toolbus.metrics;

import java.util.Objects;

/**
 * What an executor can do right now, for health endpoints: its slots, its queue, and whether a call
 * holds its slot past its timeout (a release path failed: the executor is wedged, not busy). A reading
 * of {@code ToolExecutor.health()}; immutable.
 *
 * <pre>{@code
 * ExecutorHealth h = executor.health();
 * if (!h.healthy()) {
 *     log.warn("toolbus is {}: {} of {} slots in use, {} calls stuck", h.status(), h.slotsInUse(), h.slots(), h.stuckCalls());
 * }
 * }</pre>
 */
public final class ExecutorHealth {

    private final int slots;
    private final int slotsInUse;
    private final int queuedCalls;
    private final int maxQueuedCalls;
    private final int activeTurns;
    private final int runningCalls;
    private final long oldestCallMs;
    private final int stuckCalls;
    private final boolean closing;

    private ExecutorHealth(Builder b) {
        this.slots = b.slots;
        this.slotsInUse = b.slotsInUse;
        this.queuedCalls = b.queuedCalls;
        this.maxQueuedCalls = b.maxQueuedCalls;
        this.activeTurns = b.activeTurns;
        this.runningCalls = b.runningCalls;
        this.oldestCallMs = b.oldestCallMs;
        this.stuckCalls = b.stuckCalls;
        this.closing = b.closing;
    }

    /** Starts a reading (the executor makes them; tests and adapters may too). */
    public static Builder builder() {
        return new Builder();
    }

    /** Handlers that may run at once ({@code maxParallel}). */
    public int slots() {
        return slots;
    }

    /** Slots held now. */
    public int slotsInUse() {
        return slotsInUse;
    }

    /** Calls waiting for a slot. */
    public int queuedCalls() {
        return queuedCalls;
    }

    /** The queue bound above which new calls are answered {@code REJECTED}. */
    public int maxQueuedCalls() {
        return maxQueuedCalls;
    }

    /** Turns taken and not yet finished. */
    public int activeTurns() {
        return activeTurns;
    }

    /** Handler runs holding a slot. */
    public int runningCalls() {
        return runningCalls;
    }

    /** How long the oldest running call has run, 0 when none. */
    public long oldestCallMs() {
        return oldestCallMs;
    }

    /** Runs holding their slot more than 5 s past their timeout. */
    public int stuckCalls() {
        return stuckCalls;
    }

    /** Whether the executor is closing (new turns are refused). */
    public boolean closing() {
        return closing;
    }

    /** Whether the executor takes new calls and none is stuck: what {@code /healthz} reports as UP. */
    public boolean healthy() {
        return !closing && stuckCalls == 0 && queuedCalls < maxQueuedCalls;
    }

    /** {@code UP}, {@code CLOSING}, {@code STUCK} (a call holds its slot past its timeout) or {@code FULL} (queue full). */
    public String status() {
        if (closing) {
            return "CLOSING";
        }
        if (stuckCalls > 0) {
            return "STUCK";
        }
        return queuedCalls >= maxQueuedCalls ? "FULL" : "UP";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ExecutorHealth h && slots == h.slots && slotsInUse == h.slotsInUse
                && queuedCalls == h.queuedCalls && maxQueuedCalls == h.maxQueuedCalls && activeTurns == h.activeTurns
                && runningCalls == h.runningCalls && oldestCallMs == h.oldestCallMs && stuckCalls == h.stuckCalls
                && closing == h.closing;
    }

    @Override
    public int hashCode() {
        return Objects.hash(slots, slotsInUse, queuedCalls, maxQueuedCalls, activeTurns, runningCalls, oldestCallMs,
                stuckCalls, closing);
    }

    @Override
    public String toString() {
        return "ExecutorHealth[slots=" + slots + ", slotsInUse=" + slotsInUse + ", queuedCalls=" + queuedCalls
                + ", maxQueuedCalls=" + maxQueuedCalls + ", activeTurns=" + activeTurns + ", runningCalls="
                + runningCalls + ", oldestCallMs=" + oldestCallMs + ", stuckCalls=" + stuckCalls + ", closing="
                + closing + "]";
    }

    /** Builder of {@link ExecutorHealth}; counts are never negative. */
    public static final class Builder {
        private int slots;
        private int slotsInUse;
        private int queuedCalls;
        private int maxQueuedCalls;
        private int activeTurns;
        private int runningCalls;
        private long oldestCallMs;
        private int stuckCalls;
        private boolean closing;

        private Builder() {
        }

        /** Handlers that may run at once. */
        public Builder slots(int v) {
            slots = count(v, "slots");
            return this;
        }

        /** Slots held now. */
        public Builder slotsInUse(int v) {
            slotsInUse = count(v, "slotsInUse");
            return this;
        }

        /** Calls waiting for a slot. */
        public Builder queuedCalls(int v) {
            queuedCalls = count(v, "queuedCalls");
            return this;
        }

        /** The queue bound. */
        public Builder maxQueuedCalls(int v) {
            maxQueuedCalls = count(v, "maxQueuedCalls");
            return this;
        }

        /** Turns taken and not yet finished. */
        public Builder activeTurns(int v) {
            activeTurns = count(v, "activeTurns");
            return this;
        }

        /** Handler runs holding a slot. */
        public Builder runningCalls(int v) {
            runningCalls = count(v, "runningCalls");
            return this;
        }

        /** How long the oldest running call has run, in ms. */
        public Builder oldestCallMs(long v) {
            if (v < 0) {
                throw new IllegalArgumentException("oldestCallMs must not be negative, got " + v);
            }
            oldestCallMs = v;
            return this;
        }

        /** Runs holding their slot more than 5 s past their timeout. */
        public Builder stuckCalls(int v) {
            stuckCalls = count(v, "stuckCalls");
            return this;
        }

        /** Whether the executor is closing. */
        public Builder closing(boolean v) {
            closing = v;
            return this;
        }

        /** The reading. */
        public ExecutorHealth build() {
            return new ExecutorHealth(this);
        }

        private static int count(int v, String name) {
            if (v < 0) {
                throw new IllegalArgumentException(name + " must not be negative, got " + v);
            }
            return v;
        }
    }
}
