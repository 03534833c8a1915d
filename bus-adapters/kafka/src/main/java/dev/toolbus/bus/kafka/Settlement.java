package dev.toolbus.bus.kafka;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import reactor.core.publisher.Mono;

/**
 * How a bus writes its output and commits its input: {@link AtLeastOnceSettlement} (write, then
 * commit) or {@link TransactionalSettlement} (both in one transaction). The {@code publish},
 * {@code ack}, {@code deadLetter} and {@code handedOver} methods are called from any thread; the
 * others from the poll thread only.
 */
interface Settlement {

    /** The largest offset metadata written (the broker's {@code offset.metadata.max.bytes} is 4096 by default). */
    int MAX_METADATA_CHARS = 3_000;

    /** Producer side ready (the poll thread calls it first). */
    void start();

    /** A record was handed to the executor. */
    void handedOver(KafkaMessage message);

    /** Writes records of one key in order; completes when they are durable (and visible). */
    Mono<Void> publish(String key, String turnId, boolean finalEvents, List<ProducerRecord<String, byte[]>> records);

    /** The record is done: its offset may be committed, with what it staged. */
    Mono<Void> ack(KafkaMessage message);

    /** Writes the record's dead letter (exactly-once: with its offset). */
    Mono<Void> deadLetter(KafkaMessage message, ProducerRecord<String, byte[]> record);

    /** Settles a record the bus answers itself without handing it over (too large, no value). */
    void reject(ConsumerRecord<String, byte[]> source, PartitionOffsets offsets, List<ProducerRecord<String, byte[]>> records);

    /** Applies completions and commits when due (or now when {@code force}). Poll thread. */
    void tick(Consumer<String, byte[]> consumer, Map<TopicPartition, PartitionOffsets> partitions, boolean force);

    /** Commits everything complete of these partitions now (before they are revoked, or at close). Poll thread. */
    void flush(Consumer<String, byte[]> consumer, Map<TopicPartition, PartitionOffsets> partitions, Collection<PartitionOffsets> which);

    /** These partitions are gone: whatever of them was not committed is dropped (their next owner runs it). */
    void dropped(Collection<PartitionOffsets> gone);

    /**
     * Another owner took this partition of the calls topic while this instance did not notice (the turn
     * state's fence saw its marker): the turns of it running here are moved, so their final events are
     * refused. Any thread.
     */
    void fenced(int partition);

    /** Told on the poll thread when a turn's events and its ledger record are committed (exactly once). */
    default void onTurnCommitted(java.util.function.BiConsumer<KafkaMessage, ProducerRecord<String, byte[]>> listener) {
    }

    /** Closes the producer side. */
    void close();
}
