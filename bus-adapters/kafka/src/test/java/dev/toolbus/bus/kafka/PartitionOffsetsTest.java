package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class PartitionOffsetsTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);
    private final PartitionOffsets offsets = new PartitionOffsets(TP, 1);

    private long position() {
        OffsetAndMetadata c = offsets.toCommit(3000);
        return c == null ? -1 : c.offset();
    }

    @Test
    void position_staysAtTheFirstIncompleteRecord_andTheMetadataListsTheCompletedOnesAbove() {
        for (long o = 10; o < 15; o++) {
            offsets.polled(o);
        }
        offsets.completed(11);
        offsets.completed(12);
        assertThat(offsets.toCommit(3000)).isEqualTo(new OffsetAndMetadata(10, "tb1:1-2;h=4"));
        offsets.completed(10);
        OffsetAndMetadata c = offsets.toCommit(3000);
        assertThat(c).isEqualTo(new OffsetAndMetadata(13, "tb1:;h=1"));
        offsets.committed(c);
        assertThat(offsets.toCommit(3000)).isNull();
        offsets.completed(14);
        assertThat(offsets.toCommit(3000)).isEqualTo(new OffsetAndMetadata(13, "tb1:1;h=1"));
        offsets.completed(13);
        assertThat(position()).isEqualTo(15);
        assertThat(offsets.outstanding()).isZero();
    }

    @Test
    void aCommitALostMarkerUndid_isAnsweredAgain() {
        offsets.polled(0);
        offsets.completed(0);
        OffsetAndMetadata c = offsets.toCommit(3000);
        offsets.committed(c);
        assertThat(offsets.toCommit(3000)).isNull();
        offsets.uncommitted();
        assertThat(offsets.toCommit(3000)).isEqualTo(c);
    }

    @Test
    void gapsInOffsets_doNotBlockCommits() {
        offsets.polled(3);
        offsets.polled(7); // 4..6 were compacted away or are transaction markers
        offsets.completed(7);
        offsets.completed(3);
        assertThat(position()).isEqualTo(8);
    }

    @Test
    void completingTwice_isHarmless() {
        offsets.polled(0);
        offsets.completed(0);
        offsets.completed(0);
        assertThat(position()).isEqualTo(1);
    }

    @Test
    void theNextOwner_skipsWhatThePreviousOneCompletedAboveItsPosition_andCountsTheRestAsRedelivered() {
        for (long o = 0; o < 6; o++) {
            assertThat(offsets.polled(o)).isEqualTo(1);
        }
        offsets.completed(2);
        offsets.completed(4);
        offsets.completed(5);
        OffsetAndMetadata commit = offsets.toCommit(3000);
        assertThat(commit).isEqualTo(new OffsetAndMetadata(0, "tb1:2,4-5;h=5"));
        PartitionOffsets next = new PartitionOffsets(TP, 2, commit);
        List<Integer> deliveries = new java.util.ArrayList<>();
        for (long o = commit.offset(); o < 7; o++) {
            deliveries.add(next.polled(o));
        }
        // 0, 1 and 3 were taken by the first owner too; 2, 4 and 5 are done; 6 is new
        assertThat(deliveries).containsExactly(2, 2, 0, 2, 0, 0, 1);
        assertThat(PartitionOffsets.covers(commit, 4)).isTrue();
        assertThat(PartitionOffsets.covers(commit, 3)).isFalse();

        next.completed(1);
        PartitionOffsets third = new PartitionOffsets(TP, 3, next.toCommit(3000));
        assertThat(third.polled(0)).isEqualTo(3);
        assertThat(third.polled(1)).isZero();
    }

    @Test
    void metadata_isBoundedAndLeavesOutWhatDoesNotFit() {
        TreeSet<Long> done = new TreeSet<>();
        for (long o = 1; o < 2000; o += 2) {
            done.add(o);
        }
        String m = OffsetMetadata.encode(0, done, 100);
        assertThat(m.length()).isLessThanOrEqualTo(100);
        assertThat(OffsetMetadata.decode(0, m)).isNotEmpty().isSubsetOf(done).contains(1L);
        assertThat(OffsetMetadata.decode(0, "someone else's")).isEmpty();
        assertThat(OffsetMetadata.decode(5, "tb1:x")).isEmpty();
    }
}
