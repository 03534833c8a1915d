package dev.toolbus.bus.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Writes state records. {@link #direct}: the state's own idempotent producer ({@code acks=all}), for
 * owner markers, {@code started} records (durable and acknowledged before a call runs, never in a
 * transaction that a crash could abort) and the journal's tombstones (same producer, so a tombstone
 * never overtakes a newer start of the same call). {@link #written}: everything else; exactly once in
 * the bus's next transaction, at least once by the same idempotent producer. Completions continue on
 * {@code completions}, never on the producer's I/O thread.
 */
final class StateWriter implements AutoCloseable {

    private final KafkaProducer<String, byte[]> producer;
    private final StateTransactions tx;
    private final Scheduler completions;

    /** @param tx the bus's transactions (exactly once), or null */
    StateWriter(KafkaBusConfig config, StateTransactions tx, Scheduler completions) {
        this.producer = new KafkaProducer<>(properties(config), new StringSerializer(), new ByteArraySerializer());
        this.tx = tx;
        this.completions = completions;
    }

    /** The bus's transactions, or null (at least once, or a state without a bus). */
    StateTransactions tx() {
        return tx;
    }

    /** Writes with the idempotent producer; completes with the highest offset written per partition. */
    Mono<Map<Integer, Long>> direct(List<ProducerRecord<String, byte[]>> records) {
        if (records.isEmpty()) {
            return Mono.just(Map.of());
        }
        return Mono.<Map<Integer, Long>>create(sink -> {
            Map<Integer, Long> offsets = new HashMap<>();
            AtomicInteger left = new AtomicInteger(records.size());
            AtomicBoolean failed = new AtomicBoolean();
            for (ProducerRecord<String, byte[]> r : records) {
                try {
                    producer.send(r, (md, error) -> {
                        if (error != null) {
                            if (failed.compareAndSet(false, true)) {
                                sink.error(error);
                            }
                            return;
                        }
                        synchronized (offsets) {
                            offsets.merge(md.partition(), md.offset(), Math::max);
                        }
                        if (left.decrementAndGet() == 0 && !failed.get()) {
                            synchronized (offsets) {
                                sink.success(Map.copyOf(offsets));
                            }
                        }
                    });
                } catch (RuntimeException e) {
                    if (failed.compareAndSet(false, true)) {
                        sink.error(e);
                    }
                    return;
                }
            }
        }).publishOn(completions);
    }

    /** Writes records that need no offset back: in the next transaction (exactly once) or directly. */
    Mono<Void> written(List<ProducerRecord<String, byte[]>> records) {
        if (records.isEmpty()) {
            return Mono.empty();
        }
        return tx != null ? tx.write(records) : direct(records).then();
    }

    private static Properties properties(KafkaBusConfig config) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(ProducerConfig.CLIENT_ID_CONFIG, config.clientId() + "-state");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "1");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        config.producerProperties().forEach((k, v) -> {
            if (!k.equals(ProducerConfig.TRANSACTIONAL_ID_CONFIG)) {
                p.put(k, v);
            }
        });
        p.put(ProducerConfig.ACKS_CONFIG, "all"); // a started record must be on every in-sync replica
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        return p;
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
