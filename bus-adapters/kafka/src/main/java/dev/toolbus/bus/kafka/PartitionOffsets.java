package dev.toolbus.bus.kafka;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;

/**
 * Offsets of one assigned partition: those polled in order, those completed (in any order), and the
 * position that may be committed, which is one past the highest offset below which every polled
 * offset is complete. Touched by the poll thread only, except {@link #inflight} and {@link #revoked}.
 */
final class PartitionOffsets {

    final TopicPartition partition;
    /** Distinguishes this assignment from a later one of the same partition. */
    final long epoch;
    /** Records handed to the executor and not yet completed. */
    final AtomicInteger inflight = new AtomicInteger();
    volatile boolean revoked;

    private final ArrayDeque<Long> outstanding = new ArrayDeque<>();
    private final Set<Long> completedAhead = new HashSet<>();
    private long committable = -1;
    private long committed = -1;

    PartitionOffsets(TopicPartition partition, long epoch) {
        this.partition = partition;
        this.epoch = epoch;
    }

    /** A record was polled (offsets arrive in increasing order). */
    void polled(long offset) {
        outstanding.addLast(offset);
    }

    /** A record was completed (acknowledged or settled by the bus). */
    void completed(long offset) {
        if (outstanding.isEmpty() || offset < outstanding.peekFirst()) {
            return; // already accounted for
        }
        completedAhead.add(offset);
        while (!outstanding.isEmpty() && completedAhead.remove(outstanding.peekFirst())) {
            committable = outstanding.pollFirst() + 1;
        }
    }

    /** The offset to commit (next to consume), or -1 when nothing new is complete. */
    long toCommit() {
        return committable > committed ? committable : -1;
    }

    void committed(long offset) {
        committed = Math.max(committed, offset);
    }

    /** Polled records not yet completed. */
    int outstanding() {
        return outstanding.size();
    }
}
