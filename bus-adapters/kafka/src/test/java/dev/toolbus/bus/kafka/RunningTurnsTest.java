package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolbus.protocol.EventIdPeek;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Which run of a turn its final events belong to when the turn's partition moves. */
class RunningTurnsTest {

    private final RunningTurns running = new RunningTurns();
    private final AtomicInteger busInflight = new AtomicInteger();

    private KafkaMessage delivery(PartitionOffsets offsets, long offset) {
        byte[] json = "{\"type\":\"tool_calls\",\"stream_id\":\"s1\",\"turn_id\":\"t1\",\"calls\":[]}"
                .getBytes(StandardCharsets.UTF_8);
        KafkaMessage m = new KafkaMessage(new ConsumerRecord<>("calls", 0, offset, "s1", json), offsets,
                EventIdPeek.of(json), null, null, busInflight);
        running.handedOver(m);
        return m;
    }

    private static PartitionOffsets partition() {
        return new PartitionOffsets(new TopicPartition("calls", 0), 1);
    }

    @Test
    void aRunThatHadNotPublishedWhenItsPartitionMoved_isRefused_thenTheRecordsNextDeliveryPublishes() {
        PartitionOffsets before = partition();
        delivery(before, 7);
        running.moved(m -> m.offsets == before);
        KafkaMessage again = delivery(partition(), 7); // the partition came back: the record runs here again

        assertThatThrownBy(() -> running.forFinalEvents("s1", "t1")).as("the first run publishes first, and is refused")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("moved while the turn ran here");
        assertThat(running.forFinalEvents("s1", "t1")).as("the run of the record delivered again").isSameAs(again);
    }

    @Test
    void aRunThatHadPublishedWhenItsPartitionMoved_doesNotCountAsMoved() {
        PartitionOffsets before = partition();
        KafkaMessage first = delivery(before, 7);
        assertThat(running.forFinalEvents("s1", "t1")).isSameAs(first); // published, not yet acknowledged
        running.moved(m -> m.offsets == before);
        KafkaMessage again = delivery(partition(), 7);

        assertThat(running.forFinalEvents("s1", "t1")).as("the record's next run publishes; nothing else will")
                .isSameAs(again);
    }

    @Test
    void aTurnNotRunningHere_hasNoMessage() {
        assertThat(running.forFinalEvents("s1", "t1")).isNull();
    }
}
