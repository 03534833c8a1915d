package dev.toolbus.executor;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs the turns of one stream one after the other, in submission order; different streams never
 * wait for each other. A stream is in the map only while it has a running turn; an idle stream's turn
 * costs one insert and one removal, with no allocation.
 */
final class StreamLanes {

    /** The value of a busy stream with nothing waiting. */
    private static final Object BUSY = new Object();

    private final ConcurrentHashMap<String, Object> lanes = new ConcurrentHashMap<>();

    /** Starts the turn now if its stream is idle, else after the stream's earlier turns. */
    void submit(String streamId, Runnable start) {
        if (lanes.putIfAbsent(streamId, BUSY) == null) {
            // an idle stream: run now; a chain of next turns started by release() is trampolined there
            start.run();
            return;
        }
        boolean[] idle = new boolean[1];
        lanes.compute(streamId, (k, v) -> {
            if (v == null) {
                idle[0] = true;
                return BUSY;
            }
            @SuppressWarnings("unchecked")
            ArrayDeque<Runnable> q = v == BUSY ? new ArrayDeque<>(4) : (ArrayDeque<Runnable>) v;
            q.add(start);
            return q;
        });
        if (idle[0]) {
            Trampoline.run(start);
        }
    }

    /** Marks the stream's running turn done and starts its next turn, if any. */
    void release(String streamId) {
        if (lanes.remove(streamId, BUSY)) {
            return;
        }
        Runnable[] next = new Runnable[1];
        lanes.computeIfPresent(streamId, (k, v) -> {
            if (v == BUSY) {
                return null;
            }
            @SuppressWarnings("unchecked")
            ArrayDeque<Runnable> q = (ArrayDeque<Runnable>) v;
            next[0] = q.poll();
            if (next[0] == null) {
                return null;
            }
            return q.isEmpty() ? BUSY : q;
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
