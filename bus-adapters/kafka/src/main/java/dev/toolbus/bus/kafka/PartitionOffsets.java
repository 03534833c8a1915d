package dev.toolbus.bus.kafka;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Offsets of one assigned partition: those polled in order, those completed (in any order), and what
 * may be committed: the position (the first offset not complete) plus, in the commit's metadata, the
 * completed offsets above it ({@link OffsetMetadata}), so that the next owner of the partition does
 * not run them again. Touched by the poll thread only, except {@link #inflight} and {@link #revoked}.
 */
final class PartitionOffsets {

    final TopicPartition partition;
    /** Distinguishes this assignment from a later one of the same partition. */
    final long epoch;
    /** Records handed to the executor and not yet completed. */
    final AtomicInteger inflight = new AtomicInteger();
    /** Those records themselves, released when the partition goes (bounded by the executor's demand). */
    final Set<KafkaMessage> handedOver = ConcurrentHashMap.newKeySet();
    volatile boolean revoked;

    private final ArrayDeque<Long> outstanding = new ArrayDeque<>();
    private final NavigableSet<Long> completedAhead = new TreeSet<>();
    /** Offsets a previous owner completed above its committed position (from the commit's metadata). */
    private final NavigableSet<Long> restored;
    /** The highest offset a previous owner polled, -1 when unknown. */
    private final long restoredHighest;
    /** Delivery counts (at least 2) of polled records not yet complete, restored ones included. */
    private final Map<Long, Integer> counts;
    private long highestPolled = -1;
    private long next = -1;
    private boolean dirty;
    /** No record polled since the assignment yet (the first batch's counts are committed before it runs). */
    boolean fresh = true;

    PartitionOffsets(TopicPartition partition, long epoch) {
        this(partition, epoch, null);
    }

    PartitionOffsets(TopicPartition partition, long epoch, OffsetAndMetadata committed) {
        this.partition = partition;
        this.epoch = epoch;
        OffsetMetadata.State state = committed == null ? OffsetMetadata.State.empty()
                : OffsetMetadata.state(committed.offset(), committed.metadata());
        this.restored = state.completed();
        this.restoredHighest = state.highestPolled();
        this.counts = state.counts();
    }

    /**
     * A record was polled (offsets arrive in increasing order). Returns its delivery count: how many
     * owners of the partition took it without completing it, this one included; 0 when a previous
     * owner already completed it (it is then complete here too and must not be run).
     */
    int polled(long offset) {
        outstanding.addLast(offset);
        highestPolled = Math.max(highestPolled, offset);
        if (restored.remove(offset)) {
            completed(offset);
            return 0;
        }
        Integer before = counts.get(offset);
        int n = before != null ? before + 1 : offset <= restoredHighest ? 2 : 1;
        if (n >= 2) {
            counts.put(offset, n);
        }
        if (fresh) {
            dirty = true;
        }
        return n;
    }

    /** A record was completed (acknowledged or settled by the bus). */
    void completed(long offset) {
        if (outstanding.isEmpty() || offset < outstanding.peekFirst()) {
            return; // already accounted for
        }
        completedAhead.add(offset);
        counts.remove(offset);
        while (!outstanding.isEmpty() && completedAhead.remove(outstanding.peekFirst())) {
            next = outstanding.pollFirst() + 1;
        }
        dirty = true;
    }

    /** Whether the completed offset is covered by a commit of {@link #toCommit(int)}'s answer. */
    static boolean covers(OffsetAndMetadata commit, long offset) {
        return offset < commit.offset() || OffsetMetadata.decode(commit.offset(), commit.metadata()).contains(offset);
    }

    /**
     * What to commit, or null when nothing changed since the last {@link #committed}: the first offset
     * not complete, and as many completed offsets above it as fit in {@code maxMetadataChars}.
     */
    OffsetAndMetadata toCommit(int maxMetadataChars) {
        return toCommit(maxMetadataChars, false);
    }

    /** As {@link #toCommit(int)}; with {@code always}, also when nothing changed. */
    OffsetAndMetadata toCommit(int maxMetadataChars, boolean always) {
        if (!dirty && !always) {
            return null;
        }
        long position = outstanding.isEmpty() ? next : outstanding.peekFirst();
        if (position < 0) {
            return null;
        }
        return new OffsetAndMetadata(position,
                OffsetMetadata.encode(position, completedAhead, highestPolled, counts, maxMetadataChars));
    }

    /** A commit of {@link #toCommit(int)}'s answer succeeded. */
    void committed(OffsetAndMetadata commit) {
        OffsetAndMetadata now = toCommit(Integer.MAX_VALUE);
        if (now != null && now.offset() == commit.offset() && now.metadata().equals(commit.metadata())) {
            dirty = false;
        }
    }

    /** The last commit did not hold (a lost transaction marker): the next {@link #toCommit(int)} answers again. */
    void uncommitted() {
        dirty = true;
    }

    /** Polled records not yet completed. */
    int outstanding() {
        return outstanding.size() - completedAhead.size();
    }
}
