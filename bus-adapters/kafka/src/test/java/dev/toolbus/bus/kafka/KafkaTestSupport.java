package dev.toolbus.bus.kafka;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** The Kafka broker the test harness started (scripts/services/kafka.sh), and plain clients to look at it. */
final class KafkaTestSupport implements AutoCloseable {

    static final String BOOTSTRAP_ENV = "TOOLBUS_KAFKA_BOOTSTRAP";

    final String bootstrap;
    final String prefix = "t" + UUID.randomUUID().toString().substring(0, 8) + ".";
    final KafkaProducer<String, byte[]> producer;
    private final List<ConsumerRecord<String, byte[]>> results = new ArrayList<>();
    private final List<ConsumerRecord<String, byte[]>> dead = new ArrayList<>();
    private KafkaConsumer<String, byte[]> reader;

    private KafkaTestSupport(String bootstrap) {
        this.bootstrap = bootstrap;
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "1");
        // a client's plain producer; one request in flight keeps the order without idempotence, whose
        // sequence checks can loop on partitions the broker has only just created
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        this.producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }

    /** Skips the test when no broker was started for it. */
    static KafkaTestSupport require() {
        String bootstrap = System.getenv(BOOTSTRAP_ENV);
        assumeTrue(bootstrap != null && !bootstrap.isBlank(), BOOTSTRAP_ENV + " is not set, so this Kafka test is skipped. "
                + "Run scripts/test.sh, or `source scripts/lib/services.sh && start_services` before mvn.");
        return new KafkaTestSupport(bootstrap);
    }

    /** Settings whose topics and group carry this test's prefix. */
    KafkaBusConfig.Builder config() {
        return configFor(bootstrap, prefix);
    }

    /** Settings whose topics and group carry this prefix (also used by {@link KafkaWorkerMain}). */
    static KafkaBusConfig.Builder configFor(String bootstrap, String prefix) {
        return KafkaBusConfig.builder()
                .bootstrapServers(bootstrap)
                .callsTopic(prefix + "calls")
                .resultsTopic(prefix + "results")
                .deadLetterTopic(prefix + "dead")
                .groupId(prefix + "group")
                .topicPartitions(3)
                .shutdownTimeout(Duration.ofSeconds(5))
                .consumerProperty(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000")
                .consumerProperty(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
    }

    void send(String key, String json) {
        try {
            producer.send(new ProducerRecord<>(prefix + "calls", key, json == null ? null : json.getBytes(StandardCharsets.UTF_8))).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Everything on the results topic so far, in partition order. */
    synchronized List<ConsumerRecord<String, byte[]>> results() {
        poll();
        return List.copyOf(results);
    }

    synchronized List<ConsumerRecord<String, byte[]>> deadLetters() {
        poll();
        return List.copyOf(dead);
    }

    private void poll() {
        if (reader == null) {
            Properties p = new Properties();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"); // what a bot core of an exactly-once bus uses
            reader = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
            List<TopicPartition> all = new ArrayList<>();
            for (String t : List.of(prefix + "results", prefix + "dead")) {
                reader.partitionsFor(t, Duration.ofSeconds(10)).forEach(pi -> all.add(new TopicPartition(t, pi.partition())));
            }
            reader.assign(all);
            reader.seekToBeginning(all);
        }
        for (int i = 0; i < 3; i++) {
            for (ConsumerRecord<String, byte[]> r : reader.poll(Duration.ofMillis(100))) {
                (r.topic().endsWith("dead") ? dead : results).add(r);
            }
        }
    }

    static String value(ConsumerRecord<String, byte[]> r) {
        return r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8);
    }

    Map<TopicPartition, OffsetAndMetadata> committed() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            return admin.listConsumerGroupOffsets(prefix + "group").partitionsToOffsetAndMetadata().get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The end offset of every partition of the calls topic. */
    Map<TopicPartition, Long> callsEndOffsets() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            String topic = prefix + "calls";
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
            Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new java.util.HashMap<>();
            for (int i = 0; i < partitions; i++) {
                latest.put(new TopicPartition(topic, i), org.apache.kafka.clients.admin.OffsetSpec.latest());
            }
            Map<TopicPartition, Long> out = new java.util.HashMap<>();
            admin.listOffsets(latest).all().get().forEach((tp, info) -> out.put(tp, info.offset()));
            return out;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The group's state and member count, e.g. {@code STABLE/2}. */
    String groupState() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            var d = admin.describeConsumerGroups(List.of(prefix + "group")).all().get().get(prefix + "group");
            return d.groupState().name() + "/" + d.members().size();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The consumer group is healthy: every record of the calls topic is committed (lag 0, nothing left
     * to redeliver) and the group is stable with {@code members} members.
     */
    void awaitGroupHealthy(int members) {
        Map<TopicPartition, Long> ends = callsEndOffsets();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            Map<TopicPartition, OffsetAndMetadata> now = committed();
            ends.forEach((tp, end) -> org.assertj.core.api.Assertions.assertThat(now.get(tp)).as("committed %s", tp)
                    .isNotNull().extracting(OffsetAndMetadata::offset).isEqualTo(end));
            org.assertj.core.api.Assertions.assertThat(groupState()).isEqualTo("STABLE/" + members);
        });
    }

    @Override
    public synchronized void close() {
        producer.close(Duration.ofSeconds(5));
        if (reader != null) {
            reader.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(2)));
        }
    }
}
