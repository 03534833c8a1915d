package dev.toolbus.benchmarks.load;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Kafka ceiling: the classic consume-produce-commit loop on kafka-clients alone. {@code poll} (up to
 * 500 records, the adapter's {@code max.poll.records}); per record decode the turn, run echo and send
 * the {@code tool_result} and {@code turn_completed} keyed by {@code stream_id} to
 * {@code toolbus.results}; {@code flush()}; then commit the batch's offsets. Consumer and producer
 * settings are the adapter's (cooperative sticky, read_committed, acks=all, idempotent, linger 2 ms).
 * Args: bootstrap servers, group, client id.
 */
public final class RawKafkaWorker {

    private RawKafkaWorker() {
    }

    public static void main(String[] args) {
        String bootstrap = args[0];
        String group = args[1];
        String clientId = args[2];
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
        c.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId + "-producer");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "2");
        KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer());
        KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
        Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
        RawRedisWorker.Stopper stop = new RawRedisWorker.Stopper() {
            @Override
            public void run() {
                requested = true;
                consumer.wakeup();
                super.run();
            }
        };
        Runtime.getRuntime().addShutdownHook(stop);
        consumer.subscribe(List.of(KafkaBroker.CALLS), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
                // everything handed out was flushed before this poll: commit it before the partitions move
                Map<TopicPartition, OffsetAndMetadata> mine = new HashMap<>();
                revoked.forEach(tp -> {
                    OffsetAndMetadata om = done.remove(tp);
                    if (om != null) {
                        mine.put(tp, om);
                    }
                });
                if (!mine.isEmpty()) {
                    consumer.commitSync(mine);
                }
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
            }
        });
        System.out.println("READY " + clientId);
        System.out.flush();
        long turns = 0;
        try {
            while (!stop.requested) {
                ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(100));
                if (records.isEmpty()) {
                    continue;
                }
                Map<TopicPartition, OffsetAndMetadata> batch = new HashMap<>();
                for (ConsumerRecord<String, byte[]> r : records) {
                    EchoEvents.Answer answer = EchoEvents.answer(r.value());
                    for (byte[] event : answer.events()) {
                        producer.send(new ProducerRecord<>(KafkaBroker.RESULTS, answer.streamId(), event));
                    }
                    batch.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                }
                producer.flush();
                done.putAll(batch);
                consumer.commitAsync(batch, null);
                turns += records.count();
            }
        } catch (WakeupException stopping) {
            // SIGTERM
        }
        if (!done.isEmpty()) {
            consumer.commitSync(done);
        }
        System.out.println("STOPPED after " + turns + " turns");
        consumer.close(Duration.ofSeconds(5));
        producer.close(Duration.ofSeconds(5));
        stop.done();
    }
}
