package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.bus.EventIdPeek;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class KafkaMessageTest {

    private final PartitionOffsets offsets = new PartitionOffsets(new TopicPartition("calls", 0), 1);
    private final AtomicInteger busInflight = new AtomicInteger();

    private KafkaMessage handedOver(long offset) {
        KafkaMessage m = new KafkaMessage(new ConsumerRecord<>("calls", 0, offset, "s", new byte[0]), offsets,
                EventIdPeek.NONE, null, null, busInflight);
        offsets.inflight.incrementAndGet();
        offsets.handedOver.add(m);
        busInflight.incrementAndGet();
        return m;
    }

    @Test
    void aRecordWhosePartitionMoved_isReleased_once_andIsNoLongerInFlight() {
        KafkaMessage moved = handedOver(0);
        KafkaMessage done = handedOver(1);
        assertThat(done.settle()).isTrue();

        offsets.handedOver.forEach(KafkaMessage::release);
        assertThat(moved.released()).isTrue();
        assertThat(done.released()).as("settled by the executor before the move").isFalse();
        assertThat(offsets.inflight).hasValue(0);
        assertThat(busInflight).hasValue(0);
        assertThat(offsets.handedOver).isEmpty();
        assertThat(moved.settle()).as("a later acknowledgement settles nothing").isFalse();
        moved.release();
        assertThat(busInflight).hasValue(0);
    }
}
