package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** What {@link WrittenRecords} keeps of committed transactions, and what it gives back for a hanging one. */
class WrittenRecordsTest {

    private static final TopicPartition R1 = new TopicPartition("t.results", 1);
    private static final TopicPartition R2 = new TopicPartition("t.results", 2);
    private static final long SECOND = 1_000_000_000L;

    private final List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
    private final List<Future<RecordMetadata>> sent = new ArrayList<>();

    /** Adds a record written to {@code tp} at {@code offset} to the transaction being built. */
    private WrittenRecordsTest at(TopicPartition tp, long offset, String value) {
        records.add(new ProducerRecord<>(tp.topic(), tp.partition(), "s", value.getBytes(StandardCharsets.UTF_8)));
        sent.add(CompletableFuture.completedFuture(new RecordMetadata(tp, offset, 0, 0L, 1, value.length())));
        return this;
    }

    private void commit(WrittenRecords w, long atNanos) {
        w.committed(List.copyOf(records), List.copyOf(sent), 100L * records.size(), atNanos);
        records.clear();
        sent.clear();
    }

    private static List<String> values(WrittenRecords.Span s) {
        return s.records().stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
    }

    @Test
    void aTransactionCommittedBeforeTheGraceThatWroteAtOrAfterTheSpansStart_saysItHangs() {
        WrittenRecords w = new WrittenRecords();
        at(R1, 10, "a").at(R1, 11, "b").at(R2, 40, "x").commit(w, 0);
        at(R1, 12, "c").commit(w, 20 * SECOND);

        assertThat(w.hangs(R1, 10, 5 * SECOND)).isTrue();
        assertThat(w.hangs(R1, 11, 5 * SECOND)).isTrue();
        assertThat(w.hangs(R1, 12, 5 * SECOND)).as("only a transaction still within the grace wrote there").isFalse();
        assertThat(w.hangs(R1, 12, 25 * SECOND)).isTrue();
        assertThat(w.hangs(R2, 41, 25 * SECOND)).as("nothing written there at or after the start").isFalse();
        assertThat(w.hangs(new TopicPartition("t.turns", 1), 0, 25 * SECOND)).isFalse();
    }

    @Test
    void take_givesTheSpansRecordsInOffsetOrder_andForgetsThem() {
        WrittenRecords w = new WrittenRecords();
        at(R1, 10, "a").at(R2, 40, "x").at(R1, 11, "b").commit(w, 0);
        at(R1, 13, "d").at(R1, 12, "c").commit(w, SECOND);
        long before = w.bytes();

        WrittenRecords.Span span = w.take(R1, 11);

        assertThat(values(span)).containsExactly("b", "c", "d");
        assertThat(span.complete()).isTrue();
        assertThat(w.bytes()).isLessThan(before);
        assertThat(w.take(R1, 11).records()).as("forgotten once taken").isEmpty();
        assertThat(values(w.take(R1, 0))).as("the record before the span is still kept").containsExactly("a");
        assertThat(values(w.take(R2, 0))).containsExactly("x");
        assertThat(w.transactions()).isZero();
        assertThat(w.bytes()).isZero();
    }

    @Test
    void theOldestTransactionsLeave_pastTheByteBound_orTheAge_andATakeSaysWhenItMayMissSome() {
        WrittenRecords w = new WrittenRecords(250, 60 * SECOND);
        at(R1, 10, "a").commit(w, 0); // 100 bytes
        at(R1, 11, "b").commit(w, SECOND);
        at(R1, 12, "c").commit(w, 2 * SECOND); // 300 bytes: "a" leaves
        assertThat(w.transactions()).isEqualTo(2);
        assertThat(w.bytes()).isEqualTo(200);

        WrittenRecords.Span fromStart = w.take(R1, 10);
        assertThat(values(fromStart)).containsExactly("b", "c");
        assertThat(fromStart.complete()).as("the span began with a record no longer kept").isFalse();

        at(R1, 20, "e").commit(w, 3 * SECOND);
        at(R1, 21, "f").commit(w, 70 * SECOND); // "e" is older than 60 s now
        assertThat(values(w.take(R1, 0))).containsExactly("f");
    }

    @Test
    void aSendThatFailed_orAnEmptyTransaction_isNotKept() {
        WrittenRecords w = new WrittenRecords();
        records.add(new ProducerRecord<>(R1.topic(), R1.partition(), "s", new byte[1]));
        sent.add(CompletableFuture.failedFuture(new IllegalStateException("not written")));
        commit(w, 0);
        commit(w, 0);
        assertThat(w.hangs(R1, 0, SECOND)).isFalse();
        assertThat(w.take(R1, 0).records()).isEmpty();
        assertThat(w.transactions()).as("only the one with a record").isEqualTo(1);
    }
}
