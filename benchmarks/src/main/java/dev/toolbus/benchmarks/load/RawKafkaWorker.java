package dev.toolbus.benchmarks.load;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
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
 * The Kafka ceiling: the consume-produce-commit loop on kafka-clients alone, in either delivery mode of
 * the adapter. Per record: decode the turn, run echo and send the {@code tool_result} and
 * {@code turn_completed} keyed by {@code stream_id} to {@code toolbus.results}. Consumer and producer
 * settings are the adapter's (up to 500 records a poll, cooperative sticky, read_committed, acks=all,
 * idempotent, linger 2 ms).
 *
 * <ul>
 *   <li>{@code at-least-once} (pipelined): nothing waits; a poll batch's offsets are committed
 *       ({@code commitAsync}) once every send of it and of the batches before it was acknowledged,
 *       which the loop checks before each poll (poll timeout 100 ms, the adapter's).</li>
 *   <li>{@code exactly-once}: a transactional producer; each poll batch's sends and its offsets
 *       ({@code sendOffsetsToTransaction} with the group metadata) in one transaction, committed before
 *       the next poll (poll timeout 10 ms, the adapter's transaction interval). A transaction commit
 *       waits for its records by nature: one producer has one open transaction.</li>
 * </ul>
 *
 * Args: bootstrap servers, group, client id, and optionally the mode ({@code at-least-once}, the
 * default, or {@code exactly-once}).
 */
public final class RawKafkaWorker {

    private RawKafkaWorker() {
    }

    public static void main(String[] args) {
        String bootstrap = args[0];
        String group = args[1];
        String clientId = args[2];
        boolean eos = args.length > 3 && args[3].equals("exactly-once");
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
        if (eos) {
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, clientId + "-tx");
            p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "10000");
        }
        KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer());
        KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
        if (eos) {
            producer.initTransactions();
        }
        Loop loop = eos ? new Transactional(consumer, producer) : new Pipelined(consumer, producer);
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
                loop.revoked(revoked);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
            }
        });
        System.out.println("READY " + clientId + (eos ? " exactly-once" : " at-least-once"));
        System.out.flush();
        long turns = 0;
        Duration pollTimeout = Duration.ofMillis(eos ? 10 : 100);
        try {
            while (!stop.requested) {
                loop.beforePoll();
                ConsumerRecords<String, byte[]> records = consumer.poll(pollTimeout);
                if (records.isEmpty()) {
                    continue;
                }
                loop.handle(records);
                turns += records.count();
            }
        } catch (WakeupException stopping) {
            // SIGTERM
        }
        loop.close();
        System.out.println("STOPPED after " + turns + " turns");
        consumer.close(Duration.ofSeconds(5));
        producer.close(Duration.ofSeconds(5));
        stop.done();
    }

    private static Map<TopicPartition, OffsetAndMetadata> answer(ConsumerRecords<String, byte[]> records,
                                                                KafkaProducer<String, byte[]> producer,
                                                                org.apache.kafka.clients.producer.Callback callback,
                                                                AtomicInteger sends) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (ConsumerRecord<String, byte[]> r : records) {
            EchoEvents.Answer answer = EchoEvents.answer(r.value());
            for (byte[] event : answer.events()) {
                sends.incrementAndGet();
                producer.send(new ProducerRecord<>(KafkaBroker.RESULTS, answer.streamId(), event), callback);
            }
            offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
        }
        return offsets;
    }

    private interface Loop {
        void beforePoll();

        void handle(ConsumerRecords<String, byte[]> records);

        void revoked(Collection<TopicPartition> revoked);

        void close();
    }

    /** At least once without waiting: offsets commit in poll order once their sends are acknowledged. */
    private static final class Pipelined implements Loop {
        private final KafkaConsumer<String, byte[]> consumer;
        private final KafkaProducer<String, byte[]> producer;
        private final ArrayDeque<Batch> unacked = new ArrayDeque<>();
        private final AtomicReference<Exception> failed = new AtomicReference<>();

        Pipelined(KafkaConsumer<String, byte[]> consumer, KafkaProducer<String, byte[]> producer) {
            this.consumer = consumer;
            this.producer = producer;
        }

        @Override
        public void beforePoll() {
            Exception e = failed.get();
            if (e != null) {
                throw new IllegalStateException("a send failed", e);
            }
            Map<TopicPartition, OffsetAndMetadata> commit = acknowledged();
            if (!commit.isEmpty()) {
                consumer.commitAsync(commit, null);
            }
        }

        /** The offsets of the oldest batches whose sends are all acknowledged (and removes them). */
        private Map<TopicPartition, OffsetAndMetadata> acknowledged() {
            Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
            while (!unacked.isEmpty() && unacked.peekFirst().sends.get() == 0) {
                commit.putAll(unacked.pollFirst().offsets);
            }
            return commit;
        }

        @Override
        public void handle(ConsumerRecords<String, byte[]> records) {
            Batch b = new Batch();
            b.sends.set(1); // not down to 0 before every send is made
            b.offsets = answer(records, producer, (md, error) -> {
                if (error != null) {
                    failed.compareAndSet(null, error);
                }
                b.sends.decrementAndGet();
            }, b.sends);
            b.sends.decrementAndGet();
            unacked.addLast(b);
        }

        @Override
        public void revoked(Collection<TopicPartition> revoked) {
            // everything sent before the partitions move is written, then committed
            close();
        }

        @Override
        public void close() {
            producer.flush();
            Map<TopicPartition, OffsetAndMetadata> commit = acknowledged();
            if (!commit.isEmpty()) {
                consumer.commitSync(commit);
            }
        }

        private static final class Batch {
            final AtomicInteger sends = new AtomicInteger();
            Map<TopicPartition, OffsetAndMetadata> offsets;
        }
    }

    /** Exactly once: one transaction per poll batch, its offsets included. */
    private static final class Transactional implements Loop {
        private final KafkaConsumer<String, byte[]> consumer;
        private final KafkaProducer<String, byte[]> producer;

        Transactional(KafkaConsumer<String, byte[]> consumer, KafkaProducer<String, byte[]> producer) {
            this.consumer = consumer;
            this.producer = producer;
        }

        @Override
        public void beforePoll() {
        }

        @Override
        public void handle(ConsumerRecords<String, byte[]> records) {
            producer.beginTransaction();
            Map<TopicPartition, OffsetAndMetadata> offsets = answer(records, producer, null, new AtomicInteger());
            producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
            producer.commitTransaction();
        }

        @Override
        public void revoked(Collection<TopicPartition> revoked) {
            // every batch was committed before the next poll: nothing is open
        }

        @Override
        public void close() {
        }
    }
}
