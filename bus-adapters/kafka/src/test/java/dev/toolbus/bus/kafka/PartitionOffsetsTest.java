package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class PartitionOffsetsTest {

    private final PartitionOffsets offsets = new PartitionOffsets(new TopicPartition("t", 0), 1);

    @Test
    void toCommit_staysBelowTheFirstIncompleteRecord() {
        for (long o = 10; o < 15; o++) {
            offsets.polled(o);
        }
        offsets.completed(11);
        offsets.completed(12);
        assertThat(offsets.toCommit()).isEqualTo(-1);
        offsets.completed(10);
        assertThat(offsets.toCommit()).isEqualTo(13);
        offsets.committed(13);
        assertThat(offsets.toCommit()).isEqualTo(-1);
        offsets.completed(14);
        assertThat(offsets.toCommit()).isEqualTo(-1);
        offsets.completed(13);
        assertThat(offsets.toCommit()).isEqualTo(15);
        assertThat(offsets.outstanding()).isZero();
    }

    @Test
    void gapsInOffsets_doNotBlockCommits() {
        offsets.polled(3);
        offsets.polled(7); // 4..6 were compacted away or are transaction markers
        offsets.completed(7);
        offsets.completed(3);
        assertThat(offsets.toCommit()).isEqualTo(8);
    }

    @Test
    void completingTwice_isHarmless() {
        offsets.polled(0);
        offsets.completed(0);
        offsets.completed(0);
        assertThat(offsets.toCommit()).isEqualTo(1);
    }
}
