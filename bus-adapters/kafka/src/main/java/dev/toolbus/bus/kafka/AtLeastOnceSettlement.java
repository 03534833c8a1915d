package dev.toolbus.bus.kafka;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * At least once: records are written by the idempotent producer as they are published; a record's
 * offset is committed (periodically, on revocation and at close) once it is acknowledged, which the
 * executor does after its events were written.
 */
final class AtLeastOnceSettlement implements Settlement {

    private static final Logger log = LoggerFactory.getLogger(AtLeastOnceSettlement.class);

    private final KafkaBusConfig config;
    private final KafkaProducer<String, byte[]> producer;
    /** Where acknowledged publishes continue (one thread; not the producer's). */
    private final CompletionLane lane;
    private final ConcurrentLinkedQueue<Completion> completed = new ConcurrentLinkedQueue<>();
    private final RunningTurns running = new RunningTurns();
    private long lastCommitNanos = System.nanoTime();

    AtLeastOnceSettlement(KafkaBusConfig config) {
        this.config = config;
        this.lane = new CompletionLane("toolbus-kafka-acks-" + config.clientId());
        this.producer = Producers.idempotent(config);
    }

    @Override
    public void start() {
        Producers.warmUp(producer, config);
    }

    @Override
    public void handedOver(KafkaMessage message) {
        running.handedOver(message);
    }

    @Override
    public Mono<Void> publish(String key, String turnId, boolean finalEvents, List<ProducerRecord<String, byte[]>> records) {
        if (finalEvents && key != null && turnId != null) {
            try {
                running.forFinalEvents(key, turnId);
            } catch (IllegalStateException moved) {
                return Mono.error(moved);
            }
        }
        return Mono.<Void>create(done -> {
            AtomicInteger left = new AtomicInteger(records.size());
            AtomicBoolean failed = new AtomicBoolean();
            // sends of one key keep their order (idempotent producer); written when all are acknowledged.
            // Never continue on the producer's I/O thread (a send there can deadlock it): the lane.
            for (ProducerRecord<String, byte[]> r : records) {
                producer.send(r, (md, error) -> {
                    if (error != null) {
                        if (failed.compareAndSet(false, true)) {
                            lane.execute(() -> done.error(error));
                        }
                    } else if (left.decrementAndGet() == 0) {
                        lane.execute(done::success);
                    }
                });
            }
        });
    }

    @Override
    public Mono<Void> ack(KafkaMessage m) {
        if (m.settle()) {
            running.settled(m);
            completed.add(new Completion(m.offsets, m.record.offset()));
        }
        return Mono.empty();
    }

    @Override
    public Mono<Void> deadLetter(KafkaMessage message, ProducerRecord<String, byte[]> record) {
        return publish(record.key(), null, false, List.of(record));
    }

    @Override
    public void reject(ConsumerRecord<String, byte[]> source, PartitionOffsets offsets, List<ProducerRecord<String, byte[]>> records) {
        publish(source.key(), null, false, records).subscribe(null,
                e -> log.warn("kafka bus {}: dead-lettering {}@{} failed; it will be read again after a restart: {}",
                        config.clientId(), offsets.partition, source.offset(), e.toString()),
                () -> completed.add(new Completion(offsets, source.offset())));
    }

    @Override
    public void tick(Consumer<String, byte[]> consumer, Map<TopicPartition, PartitionOffsets> partitions, boolean force) {
        applyCompletions(partitions);
        long now = System.nanoTime();
        if (!force && now - lastCommitNanos < config.commitInterval().toNanos()) {
            return;
        }
        lastCommitNanos = now;
        Map<TopicPartition, OffsetAndMetadata> commit = toCommit(partitions.values());
        if (commit.isEmpty()) {
            return;
        }
        consumer.commitAsync(commit, (offsets, error) -> {
            if (error != null) {
                log.warn("kafka bus {}: commit failed (retried with the next one): {}", config.clientId(), error.toString());
                return;
            }
            offsets.forEach((tp, om) -> {
                PartitionOffsets po = partitions.get(tp);
                if (po != null) {
                    po.committed(om);
                }
            });
        });
    }

    @Override
    public void flush(Consumer<String, byte[]> consumer, Map<TopicPartition, PartitionOffsets> partitions,
                      Collection<PartitionOffsets> which) {
        applyCompletions(partitions);
        Map<TopicPartition, OffsetAndMetadata> commit = toCommit(which);
        if (commit.isEmpty()) {
            return;
        }
        try {
            consumer.commitSync(commit, java.time.Duration.ofSeconds(10));
            commit.forEach((tp, om) -> {
                PartitionOffsets po = partitions.get(tp);
                if (po != null) {
                    po.committed(om);
                }
            });
        } catch (KafkaException e) {
            log.warn("kafka bus {}: commit of {} failed: {}", config.clientId(), commit.keySet(), e.toString());
        }
    }

    @Override
    public void dropped(Collection<PartitionOffsets> gone) {
        running.moved(m -> gone.contains(m.offsets));
    }

    @Override
    public void fenced(int partition) {
        running.moved(m -> m.offsets.partition.partition() == partition);
    }

    @Override
    public void close() {
        try {
            producer.close(java.time.Duration.ofSeconds(10));
        } finally {
            lane.close();
        }
    }

    private void applyCompletions(Map<TopicPartition, PartitionOffsets> partitions) {
        Completion c;
        while ((c = completed.poll()) != null) {
            if (partitions.get(c.offsets.partition) == c.offsets) {
                c.offsets.completed(c.offset);
            }
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> toCommit(Collection<PartitionOffsets> which) {
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        for (PartitionOffsets po : which) {
            OffsetAndMetadata om = po.toCommit(MAX_METADATA_CHARS);
            if (om != null) {
                commit.put(po.partition, om);
            }
        }
        return commit;
    }

    private record Completion(PartitionOffsets offsets, long offset) {
    }
}
