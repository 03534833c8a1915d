package dev.toolbus.bus.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads state partitions from their start to past the new owner's marker ({@code read_committed}:
 * records of aborted transactions never count), handing each record to the store as the latest of its
 * key. Reading past the marker means reading everything an earlier owner wrote before it, including
 * records behind a transaction the earlier owner left open (the read waits until the broker ends it,
 * at most the transaction timeout). One consumer, used by one thread at a time (the bus's poll thread
 * during a rebalance, or the caller of a standalone state).
 */
final class StateRestore implements AutoCloseable {

    /** A record read back. */
    interface Sink {
        void accept(int partition, String key, byte[] value);
    }

    private final KafkaBusConfig config;
    private final String topic;
    private KafkaConsumer<String, byte[]> consumer;

    StateRestore(KafkaBusConfig config, String topic) {
        this.config = config;
        this.topic = topic;
    }

    /**
     * Reads each partition until its position is past {@code until}'s offset for it, or the timeout.
     *
     * @return the partitions read that far
     */
    synchronized Set<Integer> read(Map<Integer, Long> until, Sink sink, Duration timeout) {
        if (consumer == null) {
            consumer = new KafkaConsumer<>(properties(), new StringDeserializer(), new ByteArrayDeserializer());
        }
        Map<TopicPartition, Long> ends = new HashMap<>();
        until.forEach((p, o) -> ends.put(new TopicPartition(topic, p), o));
        Set<Integer> done = new HashSet<>();
        try {
            consumer.assign(ends.keySet());
            consumer.seekToBeginning(ends.keySet());
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    if (r.offset() <= ends.get(new TopicPartition(r.topic(), r.partition())) && r.key() != null) {
                        sink.accept(r.partition(), r.key(), r.value());
                    }
                }
                for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
                    if (consumer.position(e.getKey()) > e.getValue()) {
                        done.add(e.getKey().partition());
                    }
                }
                if (done.size() == ends.size()) {
                    break;
                }
                consumer.pause(ends.keySet().stream().filter(tp -> done.contains(tp.partition())).toList());
            }
        } finally {
            consumer.assign(Set.of());
        }
        return done;
    }

    private Properties properties() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, config.clientId() + "-state-restore");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        config.consumerProperties().forEach((k, v) -> {
            if (!k.equals(ConsumerConfig.GROUP_ID_CONFIG) && !k.equals(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG)) {
                p.put(k, v);
            }
        });
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return p;
    }

    @Override
    public synchronized void close() {
        if (consumer != null) {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            consumer = null;
        }
    }
}
