package dev.toolbus.bus.kafka;

import java.util.ArrayDeque;
import java.util.NavigableSet;
import java.util.TreeSet;
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
    volatile boolean revoked;

    private final ArrayDeque<Long> outstanding = new ArrayDeque<>();
    private final NavigableSet<Long> completedAhead = new TreeSet<>();
    /** Offsets a previous owner completed above its committed position (from the commit's metadata). */
    private final NavigableSet<Long> restored;
    private long next = -1;
    private boolean dirty;

    PartitionOffsets(TopicPartition partition, long epoch) {
        this(partition, epoch, null);
    }

    PartitionOffsets(TopicPartition partition, long epoch, OffsetAndMetadata committed) {
        this.partition = partition;
        this.epoch = epoch;
        this.restored = committed == null ? new TreeSet<>() : OffsetMetadata.decode(committed.offset(), committed.metadata());
    }

    /**
     * A record was polled (offsets arrive in increasing order). Returns false when a previous owner
     * already completed it: it is then complete here too and must not be run.
     */
    boolean polled(long offset) {
        outstanding.addLast(offset);
        if (restored.remove(offset)) {
            completed(offset);
            return false;
        }
        return true;
    }

    /** A record was completed (acknowledged or settled by the bus). */
    void completed(long offset) {
        if (outstanding.isEmpty() || offset < outstanding.peekFirst()) {
            return; // already accounted for
        }
        completedAhead.add(offset);
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
        return new OffsetAndMetadata(position, OffsetMetadata.encode(position, completedAhead, maxMetadataChars));
    }

    /** A commit of {@link #toCommit(int)}'s answer succeeded. */
    void committed(OffsetAndMetadata commit) {
        OffsetAndMetadata now = toCommit(Integer.MAX_VALUE);
        if (now != null && now.offset() == commit.offset() && now.metadata().equals(commit.metadata())) {
            dirty = false;
        }
    }

    /** Polled records not yet completed. */
    int outstanding() {
        return outstanding.size() - completedAhead.size();
    }
}
