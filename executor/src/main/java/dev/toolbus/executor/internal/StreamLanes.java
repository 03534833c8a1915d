package dev.toolbus.executor.internal;

import dev.toolbus.internal.Trampoline;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs the turns of one stream one after the other, in submission order; different streams never
 * wait for each other. It is also the registry of a stream's unfinished turns (running and queued)
 * that control events look up. A stream is in the map only while it has a running turn; an idle
 * stream's turn costs one insert and one removal, with no allocation.
 */
final class StreamLanes {

    /** A busy stream with turns waiting: the running turn and the queue behind it. */
    private static final class Lane {
        TurnRun running;
        final ArrayDeque<TurnRun> waiting = new ArrayDeque<>(4);

        Lane(TurnRun running) {
            this.running = running;
        }
    }

    /** Values: the running {@link TurnRun} when nothing waits, else a {@link Lane}. */
    private final ConcurrentHashMap<String, Object> lanes = new ConcurrentHashMap<>();

    /** Starts the turn now if its stream is idle, else after the stream's earlier turns. */
    void submit(TurnRun turn) {
        String streamId = turn.turn.streamId();
        if (lanes.putIfAbsent(streamId, turn) == null) {
            // an idle stream: run now; a chain of next turns started by release() is trampolined there
            turn.startAtSubmission();
            return;
        }
        boolean[] idle = new boolean[1];
        lanes.compute(streamId, (k, v) -> {
            if (v == null) {
                idle[0] = true;
                return turn;
            }
            Lane lane = v instanceof Lane l ? l : new Lane((TurnRun) v);
            lane.waiting.add(turn);
            return lane;
        });
        if (idle[0]) {
            Trampoline.run(turn::start);
        }
    }

    /** Marks the stream's running turn done and starts its next turn, if any. */
    void release(TurnRun turn) {
        String streamId = turn.turn.streamId();
        if (lanes.remove(streamId, turn)) {
            return;
        }
        TurnRun[] next = new TurnRun[1];
        lanes.computeIfPresent(streamId, (k, v) -> {
            if (!(v instanceof Lane lane)) {
                return v == turn ? null : v;
            }
            if (lane.running != turn) {
                // not the running turn (cannot happen: a turn is released once, after it ran)
                return lane;
            }
            next[0] = lane.waiting.poll();
            if (next[0] == null) {
                return null;
            }
            if (lane.waiting.isEmpty()) {
                return next[0];
            }
            lane.running = next[0];
            return lane;
        });
        if (next[0] != null) {
            Trampoline.run(next[0]::start);
        }
    }

    /** The stream's unfinished turns, running first, then queued in order (a snapshot). */
    List<TurnRun> turns(String streamId) {
        List<TurnRun> out = new ArrayList<>(2);
        lanes.computeIfPresent(streamId, (k, v) -> {
            if (v instanceof Lane lane) {
                out.add(lane.running);
                out.addAll(lane.waiting);
            } else {
                out.add((TurnRun) v);
            }
            return v;
        });
        return out;
    }

    /** Streams with a running turn. */
    int active() {
        return lanes.size();
    }
}
