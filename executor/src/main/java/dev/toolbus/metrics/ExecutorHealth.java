package dev.toolbus.metrics;

/**
 * What an executor can do right now, for health endpoints: its slots, its queue, and whether a call
 * holds its slot past its timeout (a release path failed: the executor is wedged, not busy).
 *
 * @param slots handlers that may run at once ({@code maxParallel})
 * @param slotsInUse slots held now
 * @param queuedCalls calls waiting for a slot
 * @param maxQueuedCalls the queue bound above which new calls are answered {@code REJECTED}
 * @param activeTurns turns taken and not yet finished
 * @param runningCalls handler runs holding a slot
 * @param oldestCallMs how long the oldest of them has run, 0 when none
 * @param stuckCalls runs holding their slot more than 5 s past their timeout
 * @param closing whether the executor is closing (new turns are refused)
 */
public record ExecutorHealth(int slots, int slotsInUse, int queuedCalls, int maxQueuedCalls, int activeTurns,
                             int runningCalls, long oldestCallMs, int stuckCalls, boolean closing) {

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
}
