package dev.toolbus.benchmarks.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Kafka side of the harness. Turns go to {@code toolbus.calls} keyed by {@code stream_id}; results are
 * read from every partition of {@code toolbus.results} by one consumer that is assigned them (no
 * group) and starts at their end. Each scenario gets a new consumer group whose committed offsets are
 * set to the end of the calls topic before any worker starts, so earlier scenarios' turns are not run.
 */
final class KafkaBroker implements Broker {

    static final String CALLS = "toolbus.calls";
    static final String RESULTS = "toolbus.results";
    static final String DEAD = "toolbus.dead";
    /** As many as the adapter creates by default, so one or two instances split them evenly. */
    static final int PARTITIONS = 6;

    private final String bootstrap;
    private final Admin admin;
    private final KafkaProducer<String, byte[]> producer;
    private volatile ClosedLoop loop;
    private volatile boolean reading;
    private Thread reader;

    KafkaBroker(String bootstrap) throws Exception {
        this.bootstrap = bootstrap;
        Properties a = new Properties();
        a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        this.admin = Admin.create(a);
        List<NewTopic> topics = new ArrayList<>();
        for (String t : List.of(CALLS, RESULTS, DEAD)) {
            topics.add(new NewTopic(t, PARTITIONS, (short) 1));
        }
        try {
            admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "1");
        this.producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }

    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public String busUri() {
        return "kafka://" + bootstrap;
    }

    @Override
    public String prepare(String scenario) throws Exception {
        String group = "load-" + scenario + "-" + System.currentTimeMillis();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int i = 0; i < PARTITIONS; i++) {
            latest.put(new TopicPartition(CALLS, i), OffsetSpec.latest());
        }
        Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
        admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS)
                .forEach((tp, info) -> start.put(tp, new OffsetAndMetadata(info.offset())));
        admin.alterConsumerGroupOffsets(group, start).all().get(30, TimeUnit.SECONDS);

        CountDownLatch positioned = new CountDownLatch(1);
        reading = true;
        reader = new Thread(() -> readLoop(positioned), "load-kafka-reader");
        reader.setDaemon(true);
        reader.start();
        if (!positioned.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("results reader did not reach the end of " + RESULTS);
        }
        return group;
    }

    private void readLoop(CountDownLatch positioned) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        try (KafkaConsumer<String, byte[]> consumer =
                     new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            for (int i = 0; i < PARTITIONS; i++) {
                parts.add(new TopicPartition(RESULTS, i));
            }
            consumer.assign(parts);
            consumer.seekToEnd(parts);
            parts.forEach(consumer::position); // resolve the end now, before any turn is published
            positioned.countDown();
            while (reading) {
                var records = consumer.poll(Duration.ofMillis(100));
                ClosedLoop l = loop; // after the poll: a phase may have started while it waited
                for (ConsumerRecord<String, byte[]> r : records) {
                    if (l != null && r.value() != null) {
                        l.onEvent(EchoEvents.parse(r.value()));
                    }
                }
            }
        } catch (RuntimeException e) {
            System.err.println("kafka reader: " + e);
        }
    }

    @Override
    public void follow(ClosedLoop loop) {
        this.loop = loop;
    }

    @Override
    public void publish(String streamId, byte[] event) {
        producer.send(new ProducerRecord<>(CALLS, streamId, event), (md, error) -> {
            if (error != null) {
                System.err.println("publish failed: " + error);
            }
        });
    }

    @Override
    public void awaitConsumers(String group, int instances, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all()
                    .get(10, TimeUnit.SECONDS).get(group);
            int owned = d.members().stream()
                    .mapToInt(m -> (int) m.assignment().topicPartitions().stream()
                            .filter(tp -> tp.topic().equals(CALLS)).count())
                    .sum();
            boolean everyoneHasWork = d.members().stream().allMatch(m -> !m.assignment().topicPartitions().isEmpty());
            if (d.groupState() == GroupState.STABLE && d.members().size() == instances && owned == PARTITIONS
                    && everyoneHasWork) {
                return;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(instances + " consumers did not own " + CALLS + " in group " + group
                + " within " + timeout);
    }

    @Override
    public Map<String, Long> writeCounts() {
        try {
            var names = admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (TopicDescription d : admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS).values()) {
                d.partitions().forEach(p -> latest.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest()));
            }
            Map<String, Long> counts = new TreeMap<>();
            admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS)
                    .forEach((tp, info) -> counts.merge(tp.topic() + " records", info.offset(), Long::sum));
            int node = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next().id();
            for (LogDirDescription dir : admin.describeLogDirs(List.of(node)).descriptions().get(node)
                    .get(30, TimeUnit.SECONDS).values()) {
                dir.replicaInfos().forEach((tp, info) -> counts.merge(tp.topic() + " bytes", info.size(), Long::sum));
            }
            return counts;
        } catch (Exception e) {
            System.out.println("   write counts: " + e);
            return Map.of();
        }
    }

    @Override
    public List<String> rawWorker(String group, String instance) {
        return List.of(RawKafkaWorker.class.getName(), bootstrap, group, instance);
    }

    @Override
    public void finish() throws InterruptedException {
        reading = false;
        if (reader != null) {
            reader.join(5_000);
            reader = null;
        }
        loop = null;
    }

    @Override
    public void close() throws Exception {
        finish();
        producer.close(Duration.ofSeconds(5));
        admin.close(Duration.ofSeconds(5));
    }
}
