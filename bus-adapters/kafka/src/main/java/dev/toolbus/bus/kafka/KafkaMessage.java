package dev.toolbus.bus.kafka;

import dev.toolbus.spi.BusMessage;
import dev.toolbus.protocol.EventIdPeek;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import reactor.core.publisher.Mono;

/** One record handed to the executor; in exactly-once mode it also holds the records staged with it. */
final class KafkaMessage implements BusMessage {

    final ConsumerRecord<String, byte[]> record;
    final PartitionOffsets offsets;
    final EventIdPeek peek;
    private final Settlement settlement;
    private final DeadLetters deadLetters;
    private final AtomicBoolean settled = new AtomicBoolean();
    private volatile boolean released;
    private final java.util.concurrent.atomic.AtomicInteger busInflight;
    private List<ProducerRecord<String, byte[]>> staged;
    /** Its turn's final events were published (guarded by {@link RunningTurns}'s lock). */
    boolean published;

    KafkaMessage(ConsumerRecord<String, byte[]> record, PartitionOffsets offsets, EventIdPeek peek,
                 Settlement settlement, DeadLetters deadLetters, java.util.concurrent.atomic.AtomicInteger busInflight) {
        this.busInflight = busInflight;
        this.record = record;
        this.offsets = offsets;
        this.peek = peek;
        this.settlement = settlement;
        this.deadLetters = deadLetters;
    }

    @Override
    public byte[] payload() {
        return record.value();
    }

    /** Marks the record complete; its offset is committed with the next commit that can reach it. */
    @Override
    public Mono<Void> ack() {
        return Mono.defer(() -> settlement.ack(this));
    }

    @Override
    public Mono<Void> deadLetter(String reason) {
        return Mono.defer(() -> settlement.deadLetter(this, deadLetters.record(record, record.value(), reason, record.key())));
    }

    /** First settlement wins; later ones are no-ops. */
    boolean settle() {
        if (!settled.compareAndSet(false, true)) {
            return false;
        }
        offsets.inflight.decrementAndGet();
        offsets.handedOver.remove(this);
        busInflight.decrementAndGet();
        return true;
    }

    /**
     * Its partition moved to another instance (which runs the record again): no longer in flight here,
     * whatever the executor does with it later (its final events fail to publish, so it may never be
     * acknowledged). A later {@link #ack()} is refused ({@link #released()}).
     */
    void release() {
        if (settle()) {
            released = true;
        }
    }

    /** Released because its partition moved, not settled by the executor. */
    boolean released() {
        return released;
    }

    boolean settled() {
        return settled.get();
    }

    /** Adds records to write with this record's offset; false when it is already settled. */
    synchronized boolean stage(List<ProducerRecord<String, byte[]>> records) {
        if (settled.get()) {
            return false;
        }
        if (staged == null) {
            staged = new ArrayList<>(records.size());
        }
        staged.addAll(records);
        return true;
    }

    /** What was staged (once, at settlement). */
    synchronized List<ProducerRecord<String, byte[]>> takeStaged() {
        List<ProducerRecord<String, byte[]>> out = staged == null ? List.of() : staged;
        staged = null;
        return out;
    }

    @Override
    public String id() {
        return record.topic() + "-" + record.partition() + "@" + record.offset();
    }

    @Override
    public String toString() {
        return id();
    }
}
