package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.spi.ToolBus;
import dev.toolbus.bus.tck.BrokerFixture;
import dev.toolbus.bus.tck.Brokers;
import dev.toolbus.bus.tck.BusOptions;
import dev.toolbus.bus.tck.DeadLetter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Kafka broker the test command started (scripts/services/kafka.sh) as the contract suites see it,
 * and plain clients to look at it: a producer as a bot core's, a {@code read_committed} reader of the
 * results and dead-letter topics, an admin client. Every topic and the group carry the test's prefix.
 */
final class KafkaFixture implements BrokerFixture {

    /** Partitions of the topics this fixture (or a bus of it) creates. */
    static final int PARTITIONS = 3;

    final String bootstrap;
    final String prefix = "t" + UUID.randomUUID().toString().substring(0, 8) + ".";
    final KafkaProducer<String, byte[]> producer;
    private final List<ConsumerRecord<String, byte[]>> results = new ArrayList<>();
    private final List<ConsumerRecord<String, byte[]>> dead = new ArrayList<>();
    private final List<KafkaBus> buses = new ArrayList<>();
    private KafkaConsumer<String, byte[]> reader;
    private Admin admin;
    private volatile boolean topicsReady;

    private KafkaFixture(String bootstrap) {
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

    /** The broker of the test command; fails the test when none was started (skips it with -Dtoolbus.brokers=off). */
    static KafkaFixture require() {
        return new KafkaFixture(Brokers.kafkaBootstrap());
    }

    /** Settings whose topics and group carry this test's prefix. */
    KafkaBusConfig.Builder config() {
        return configFor(bootstrap, prefix);
    }

    /** Settings whose topics and group carry this prefix (also used by {@link KafkaWorkerBus}). */
    static KafkaBusConfig.Builder configFor(String bootstrap, String prefix) {
        return KafkaBusConfig.builder()
                .bootstrapServers(bootstrap)
                .callsTopic(prefix + "calls")
                .resultsTopic(prefix + "results")
                .deadLetterTopic(prefix + "dead")
                .groupId(prefix + "group")
                .topicPartitions(PARTITIONS)
                .shutdownTimeout(Duration.ofSeconds(5))
                .consumerProperty(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000")
                .consumerProperty(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
    }

    // ---- BrokerFixture ----

    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public String callsName() {
        return prefix + "calls";
    }

    @Override
    public ToolBus bus(BusOptions o) {
        return bus(o, c -> c);
    }

    /** A bus as {@link #bus(BusOptions)} makes it, its settings changed last by {@code also}. */
    KafkaBus bus(BusOptions o, java.util.function.UnaryOperator<KafkaBusConfig.Builder> also) {
        KafkaBusConfig.Builder c = config().clientId(prefix + o.name());
        if (o.maxEventBytes() > 0) {
            c.maxEventBytes(o.maxEventBytes());
        }
        if (o.maxDeliveries() > 0) {
            c.maxDeliveries(o.maxDeliveries());
        }
        if (o.maxRecordedBytes() >= 0) {
            c.maxRecordedBytes(o.maxRecordedBytes());
        }
        if (o.takeOverAfter() != null) {
            long ms = o.takeOverAfter().toMillis();
            c.consumerProperty(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Long.toString(ms))
                    .consumerProperty(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Long.toString(Math.min(1000, ms / 3)));
        }
        if (o.giveUpAtOnce()) {
            c.shutdownTimeout(Duration.ZERO).revokeTimeout(Duration.ZERO);
        }
        if (o.proxy() != null) {
            c.bootstrapServers("127.0.0.1:" + o.proxy().port());
        }
        KafkaBus bus = KafkaBus.builder().config(also.apply(c).build()).build();
        synchronized (buses) {
            buses.add(bus);
        }
        bus.start().block(Duration.ofSeconds(30));
        topicsReady = true;
        return bus;
    }

    @Override
    public void send(String streamId, String json) {
        try {
            sendRecord(streamId, json).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void sendAsync(String streamId, String json) {
        sendRecord(streamId, json);
    }

    @Override
    public void flush() {
        producer.flush();
    }

    /** The producer holds what the broker cannot take yet and retries it. */
    @Override
    public void sendDuringRestart(String streamId, String json) {
        sendRecord(streamId, json);
    }

    /** A record without a value, keyed by its conversation. */
    @Override
    public void sendWithoutEvent(String streamId) {
        send(streamId, null);
    }

    private java.util.concurrent.Future<?> sendRecord(String key, String json) {
        ensureTopics();
        return producer.send(new ProducerRecord<>(prefix + "calls", key, json == null ? null : json.getBytes(StandardCharsets.UTF_8)));
    }

    @Override
    public List<String> events(String streamId) {
        return results().stream().filter(r -> streamId.equals(r.key())).map(KafkaFixture::value).toList();
    }

    @Override
    public long eventCount(Collection<String> streamIds) {
        return results().stream().filter(r -> r.key() != null && streamIds.contains(r.key())).count();
    }

    @Override
    public Map<String, List<String>> events(Collection<String> streamIds) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (ConsumerRecord<String, byte[]> r : results()) {
            if (r.key() != null && streamIds.contains(r.key())) {
                out.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(value(r));
            }
        }
        return out;
    }

    @Override
    public List<DeadLetter> deadLetters() {
        return deadLetterRecords().stream().map(r -> new DeadLetter(value(r), header(r, KafkaBus.HEADER_REASON),
                header(r, KafkaBus.HEADER_SOURCE), header(r, "toolbus.client"), header(r, KafkaBus.HEADER_DELIVERIES))).toList();
    }

    /** Every record of the calls topic is committed by the group. */
    @Override
    public boolean settled() {
        Map<TopicPartition, OffsetAndMetadata> now = committed();
        return callsEndOffsets().entrySet().stream().allMatch(e -> e.getValue() == 0
                || (now.get(e.getKey()) != null && now.get(e.getKey()).offset() == e.getValue()));
    }

    /**
     * Per partition of the calls topic its committed and end offsets, the group's state, and per partition
     * of the results its stable and end offsets (an open transaction holds a read_committed reader at its
     * first record).
     */
    @Override
    public String progress() {
        Map<TopicPartition, OffsetAndMetadata> now = committed();
        StringBuilder out = new StringBuilder();
        callsEndOffsets().forEach((tp, end) -> out.append(tp).append(' ')
                .append(now.get(tp) == null ? "-" : Long.toString(now.get(tp).offset())).append('/').append(end).append(", "));
        out.append("group ").append(groupState());
        try {
            Map<TopicPartition, Long> high = endOffsets(prefix + "results", IsolationLevel.READ_UNCOMMITTED);
            List<TopicPartition> open = new ArrayList<>();
            endOffsets(prefix + "results", IsolationLevel.READ_COMMITTED).forEach((tp, stable) -> {
                out.append(", ").append(tp).append(" stable ").append(stable).append('/').append(high.get(tp));
                if (high.get(tp) != null && stable < high.get(tp)) {
                    open.add(tp);
                }
            });
            if (!open.isEmpty()) {
                out.append("; ").append(openTransactions(open));
            }
        } catch (RuntimeException e) {
            out.append(", results offsets unknown: ").append(e);
        }
        out.append(LogSegments.batches(prefix, List.of("results", "turns")));
        return out.toString();
    }

    /**
     * Who holds the transactions left open on {@code partitions}: each producer with a transaction there
     * (its id, epoch, first offset), the transactional id the coordinator knows it by and what the
     * coordinator says of that transaction (state, partitions). A partition whose open transaction the
     * coordinator does not list is a hanging transaction (a marker never written); then the broker's own
     * log lines about it follow.
     */
    private String openTransactions(List<TopicPartition> partitions) {
        StringBuilder out = new StringBuilder("open transactions:");
        try {
            Map<Long, TransactionListing> byProducer = new HashMap<>();
            for (TransactionListing l : admin().listTransactions().all()
                    .get(10, TimeUnit.SECONDS)) {
                byProducer.put(l.producerId(), l);
            }
            admin().describeProducers(partitions).all().get(10, TimeUnit.SECONDS).forEach((tp, state) -> {
                for (ProducerState ps : state.activeProducers()) {
                    if (ps.currentTransactionStartOffset().isEmpty()) {
                        continue;
                    }
                    out.append(' ').append(tp).append(" producer ").append(ps.producerId()).append('/')
                            .append(ps.producerEpoch()).append(" from ").append(ps.currentTransactionStartOffset().getAsLong());
                    TransactionListing l = byProducer.get(ps.producerId());
                    if (l == null) {
                        out.append(" (no transactional id with this producer id: hanging)");
                        continue;
                    }
                    out.append(" (").append(l.transactionalId()).append(' ').append(l.state());
                    try {
                        TransactionDescription d = admin()
                                .describeTransactions(List.of(l.transactionalId())).all().get(10, TimeUnit.SECONDS)
                                .get(l.transactionalId());
                        out.append(", epoch ").append(d.producerEpoch()).append(", partitions ").append(d.topicPartitions());
                    } catch (Exception e) {
                        out.append(", not described: ").append(e);
                    }
                    out.append(')');
                }
            });
        } catch (Exception e) {
            out.append(" unknown: ").append(e);
        }
        out.append(brokerLog());
        return out.toString();
    }

    /** The broker's log lines (this start's and the one before) about transactions and markers, the last 40. */
    private static String brokerLog() {
        String pidFile = System.getenv("TOOLBUS_KAFKA_PID_FILE");
        if (pidFile == null) {
            return "";
        }
        java.nio.file.Path dir = java.nio.file.Path.of(pidFile).getParent();
        List<String> lines = new ArrayList<>();
        for (String name : List.of("server.log.1", "server.log")) {
            try {
                for (String line : java.nio.file.Files.readAllLines(dir.resolve(name), StandardCharsets.UTF_8)) {
                    String l = line.toLowerCase(java.util.Locale.ROOT);
                    if (l.contains("transaction") || l.contains("marker") || l.contains(" error ")) {
                        lines.add(name + ": " + line);
                    }
                }
            } catch (java.io.IOException | RuntimeException e) {
                // no such log
            }
        }
        return lines.isEmpty() ? "" : "; broker log:\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 40),
                lines.size()));
    }

    /**
     * Every record of the calls topic is committed (lag 0, nothing left to deliver again) and the group
     * is stable with {@code members} members.
     */
    @Override
    public void awaitGroupHealthy(int members) {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            Map<TopicPartition, OffsetAndMetadata> now = committed();
            callsEndOffsets().forEach((tp, end) -> {
                if (end > 0) {
                    assertThat(now.get(tp)).as("committed %s", tp).isNotNull()
                            .extracting(OffsetAndMetadata::offset).isEqualTo(end);
                }
            });
            assertThat(groupState()).isEqualTo("STABLE/" + members);
        });
    }

    @Override
    public void awaitMembers(int members) {
        await().atMost(Duration.ofSeconds(60)).until(() -> groupState().equals("STABLE/" + members));
    }

    @Override
    public int inflight(ToolBus bus) {
        return ((KafkaBus) bus).inflight();
    }

    @Override
    public Process restartBroker() throws Exception {
        return new ProcessBuilder("bash", Brokers.require("TOOLBUS_KAFKA_RESTART")).inheritIO().start();
    }

    // ---- Kafka-specific looks ----

    /** Creates the calls, results and dead-letter topics unless a bus of this test did. */
    void ensureTopics() {
        if (topicsReady) {
            return;
        }
        List<NewTopic> topics = new ArrayList<>();
        for (String t : List.of("calls", "results", "dead")) {
            topics.add(new NewTopic(prefix + t, Optional.of(PARTITIONS), Optional.empty()));
        }
        admin().createTopics(topics).values().forEach((t, f) -> {
            try {
                f.get();
            } catch (Exception e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException("cannot create " + t, e);
                }
            }
        });
        topicsReady = true;
    }

    /** Everything on the results topic so far, in partition order. */
    synchronized List<ConsumerRecord<String, byte[]>> results() {
        poll();
        return List.copyOf(results);
    }

    synchronized List<ConsumerRecord<String, byte[]>> deadLetterRecords() {
        poll();
        return List.copyOf(dead);
    }

    private void poll() {
        if (reader == null) {
            ensureTopics();
            Properties p = new Properties();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"); // what a bot core of an exactly-once bus uses
            // a position the broker no longer has fails the test where it happens: "latest" (the default)
            // would skip records and leave a flood waiting for turns it had missed, "earliest" would read
            // them twice and report repeats
            p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
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

    static String header(ConsumerRecord<String, byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private synchronized Admin admin() {
        if (admin == null) {
            Properties p = new Properties();
            p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            admin = Admin.create(p);
        }
        return admin;
    }

    Map<TopicPartition, OffsetAndMetadata> committed() {
        try {
            return admin().listConsumerGroupOffsets(prefix + "group").partitionsToOffsetAndMetadata().get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The end offset of every partition of the calls topic. */
    Map<TopicPartition, Long> callsEndOffsets() {
        return endOffsets(prefix + "calls", IsolationLevel.READ_UNCOMMITTED);
    }

    /**
     * The end offset of every partition of a topic, sorted by partition: with {@code READ_COMMITTED} the
     * stable one, before the first record of a transaction still open.
     */
    Map<TopicPartition, Long> endOffsets(String topic, IsolationLevel isolation) {
        try {
            int partitions = admin().describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int i = 0; i < partitions; i++) {
                latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> out = new java.util.TreeMap<>(java.util.Comparator.comparingInt(TopicPartition::partition));
            admin().listOffsets(latest, new ListOffsetsOptions(isolation)).all().get()
                    .forEach((tp, info) -> out.put(tp, info.offset()));
            return out;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The group's state and member count, e.g. {@code STABLE/2}; {@code NONE/0} before the group exists. */
    String groupState() {
        try {
            var d = admin().describeConsumerGroups(List.of(prefix + "group")).all().get().get(prefix + "group");
            return d.groupState().name() + "/" + d.members().size();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return "NONE/0";
            }
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized void close() {
        List<KafkaBus> open;
        synchronized (buses) {
            open = new ArrayList<>(buses);
        }
        for (KafkaBus bus : open) {
            bus.closeGracefully().block(Duration.ofSeconds(60));
        }
        producer.close(Duration.ofSeconds(5));
        if (reader != null) {
            reader.close(CloseOptions.timeout(Duration.ofSeconds(2)));
        }
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
    }
}
