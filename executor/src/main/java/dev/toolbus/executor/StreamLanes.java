package dev.toolbus.executor;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs the turns of one stream one after the other, in submission order; different streams never
 * wait for each other. A lane exists only while its stream has a running turn.
 */
final class StreamLanes {

    private final ConcurrentHashMap<String, ArrayDeque<Runnable>> lanes = new ConcurrentHashMap<>();

    /** Starts the turn now if its stream is idle, else after the stream's earlier turns. */
    void submit(String streamId, Runnable start) {
        boolean[] idle = new boolean[1];
        lanes.compute(streamId, (k, queue) -> {
            if (queue == null) {
                idle[0] = true;
                return new ArrayDeque<>(2);
            }
            queue.add(start);
            return queue;
        });
        if (idle[0]) {
            Trampoline.run(start);
        }
    }

    /** Marks the stream's running turn done and starts its next turn, if any. */
    void release(String streamId) {
        Runnable[] next = new Runnable[1];
        lanes.computeIfPresent(streamId, (k, queue) -> {
            next[0] = queue.poll();
            return next[0] == null ? null : queue;
        });
        if (next[0] != null) {
            Trampoline.run(next[0]);
        }
    }

    /** Streams with a running turn. */
    int active() {
        return lanes.size();
    }
}
