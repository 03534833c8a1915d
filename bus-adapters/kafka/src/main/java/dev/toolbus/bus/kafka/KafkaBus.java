package dev.toolbus.bus.kafka;

import dev.toolbus.bus.BusMessage;
import dev.toolbus.bus.ToolBus;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.OutboundEvent;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
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
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A {@link ToolBus} on Kafka, written on kafka-clients alone.
 *
 * <p>Turns are records of the calls topic (key {@code stream_id}, value the event JSON); the events
 * of a turn go to the results topic with the same key, so a conversation's events stay on one
 * partition and in order. One poll thread owns the consumer and feeds the Reactor pipeline: records
 * are handed over only as the executor requests them, and when more than
 * {@link KafkaBusConfig#maxBufferedRecords()} are waiting the assigned partitions are paused (and
 * resumed once the executor caught up), so nothing is buffered without bound. Offsets are committed
 * manually: per partition, the highest offset below which every record was completed, never past a
 * record still running. On revocation the bus stops handing over records of the revoked partitions,
 * waits up to {@link KafkaBusConfig#revokeTimeout()} for the running ones, and commits what is done.
 * Poison records (too large, no value, or dead-lettered by the executor) go to the dead-letter topic
 * with the reason and their origin in headers.
 *
 * <pre>{@code
 * try (ToolBus bus = KafkaBus.fromUri("kafka://127.0.0.1:9092")) {
 *     executor.run(bus).block();
 * }
 * }</pre>
 */
public final class KafkaBus implements ToolBus {

    private static final Logger log = LoggerFactory.getLogger(KafkaBus.class);

    public static final String HEADER_REASON = "toolbus.reason";
    public static final String HEADER_SOURCE = "toolbus.source";

    private final KafkaBusConfig config;
    private final EventCodec codec;
    private final KafkaProducer<String, byte[]> producer;
    private final Mono<Void> topicsReady;

    // poll-thread state
    private final Map<TopicPartition, PartitionOffsets> partitions = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Polled> buffer = new ConcurrentLinkedQueue<>();
    private final AtomicInteger buffered = new AtomicInteger();
    private final ConcurrentLinkedQueue<Completion> completed = new ConcurrentLinkedQueue<>();
    /** Where send completions are signalled (off the producer's I/O thread). */
    private final reactor.core.scheduler.Scheduler completions = Schedulers.boundedElastic();
    private final AtomicInteger inflight = new AtomicInteger();
    private final AtomicLong lag = new AtomicLong(-1);
    private final AtomicLong epochs = new AtomicLong();
    private final AtomicInteger wip = new AtomicInteger();
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CompletableFuture<Void> pollerDone = new CompletableFuture<>();
    private final AtomicReference<Thread> poller = new AtomicReference<>();
    private volatile FluxSink<BusMessage> sink;
    private volatile boolean stopped;
    private volatile boolean sinkDone;
    private KafkaConsumer<String, byte[]> consumer;
    private boolean paused;
    private long lastCommitNanos = System.nanoTime();
    private volatile Mono<Void> closed;

    private KafkaBus(Builder b) {
        this.config = b.config;
        this.codec = b.codec;
        this.producer = new KafkaProducer<>(producerProperties(), new StringSerializer(), new ByteArraySerializer());
        this.topicsReady = Mono.<Void>fromRunnable(this::createTopics)
                .subscribeOn(Schedulers.boundedElastic())
                .cache(v -> Duration.ofDays(3650), e -> Duration.ZERO, () -> Duration.ofDays(3650));
        if (b.meterRegistry != null) {
            registerMeters(b.meterRegistry);
        }
    }

    /** A bus on the brokers of this URI ({@code kafka://host:port[,host:port]}) with the default settings. */
    public static KafkaBus fromUri(String uri) {
        return fromUri(uri, KafkaBusConfig.defaults());
    }

    /** A bus on the brokers of this URI with these settings (their bootstrap servers are replaced by the URI's). */
    public static KafkaBus fromUri(String uri, KafkaBusConfig config) {
        return builder().config(config.toBuilder().bootstrapServers(uri).build()).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public KafkaBusConfig config() {
        return config;
    }

    /** Creates the calls, results and dead-letter topics if missing (when configured to). */
    public Mono<Void> start() {
        return topicsReady;
    }

    /** Records behind the end of the assigned partitions, as last seen by the poll thread; -1 before. */
    public long lag() {
        return lag.get();
    }

    /** Records handed to the executor and not yet completed. */
    public int inflight() {
        return inflight.get();
    }

    @Override
    public Flux<BusMessage> receive() {
        return start().thenMany(Flux.create(s -> {
            if (!subscribed.compareAndSet(false, true)) {
                s.error(new IllegalStateException("receive() of a Kafka bus can be subscribed once"));
                return;
            }
            sink = s;
            s.onRequest(n -> drain());
            s.onCancel(() -> {
                stopped = true;
                drain();
            });
            Thread t = new Thread(this::pollLoop, "toolbus-kafka-poll-" + config.clientId());
            t.setDaemon(true);
            poller.set(t);
            t.start();
        }, FluxSink.OverflowStrategy.ERROR));
    }

    @Override
    public Mono<Void> publish(List<OutboundEvent> events) {
        if (events.isEmpty()) {
            return Mono.empty();
        }
        String key = events.get(0).streamId();
        List<byte[]> values = new ArrayList<>(events.size());
        for (OutboundEvent e : events) {
            if (!Objects.equals(key, e.streamId())) {
                return Mono.error(new IllegalArgumentException("one publish carries the events of one stream; got "
                        + key + " and " + e.streamId()));
            }
            values.add(codec.encode(e).getBytes(StandardCharsets.UTF_8));
        }
        String topic = key == null ? config.deadLetterTopic() : config.resultsTopic();
        return topicsReady.then(Mono.<Void>create(done -> {
            AtomicInteger left = new AtomicInteger(values.size());
            AtomicBoolean failed = new AtomicBoolean();
            // sends of one key keep their order (idempotent producer); the turn is written when all are acknowledged
            for (byte[] value : values) {
                producer.send(new ProducerRecord<>(topic, key, value), (md, error) -> {
                    if (error != null) {
                        if (failed.compareAndSet(false, true)) {
                            done.error(error);
                        }
                    } else if (left.decrementAndGet() == 0) {
                        done.success();
                    }
                });
            }
        }).publishOn(completions)); // never continue on the producer's I/O thread: a send there can deadlock it
    }

    /** Sends the event to the dead-letter topic (it names no conversation). */
    @Override
    public Mono<Void> publishUnrouted(OutboundEvent event) {
        byte[] value = codec.encode(event).getBytes(StandardCharsets.UTF_8);
        return send(deadLetterRecord(null, value, "unrouted " + event.type() + " event", null));
    }

    /**
     * Stops handing over records (the {@link #receive()} Flux completes), waits up to
     * {@link KafkaBusConfig#shutdownTimeout()} for the handed-over ones to complete, commits, and
     * closes the consumer and the producer. Records not completed by then are delivered again to the
     * group's next owner of their partition.
     */
    @Override
    public Mono<Void> closeGracefully() {
        if (closing.compareAndSet(false, true)) {
            closed = Mono.<Void>fromRunnable(() -> {
                stopped = true;
                drain();
                if (poller.get() != null) {
                    consumerWakeup();
                    try {
                        pollerDone.get(config.shutdownTimeout().toMillis() + config.revokeTimeout().toMillis() + 10_000,
                                TimeUnit.MILLISECONDS);
                    } catch (Exception e) {
                        log.warn("kafka bus {}: poll thread did not finish: {}", config.clientId(), e.toString());
                    }
                }
                producer.close(Duration.ofSeconds(10));
                log.info("kafka bus {} closed", config.clientId());
            }).subscribeOn(Schedulers.boundedElastic()).cache();
        }
        return closed;
    }

    // ---------------------------------------------------------------- emission

    private void drain() {
        if (wip.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        do {
            FluxSink<BusMessage> s = sink;
            if (s != null && !sinkDone) {
                while (!stopped && s.requestedFromDownstream() > 0) {
                    Polled p = buffer.poll();
                    if (p == null) {
                        break;
                    }
                    buffered.decrementAndGet();
                    if (p.offsets.revoked) {
                        continue; // its partition went to another instance, which reads it again
                    }
                    p.offsets.inflight.incrementAndGet();
                    inflight.incrementAndGet();
                    s.next(new Message(p.record, p.offsets));
                }
                if (stopped) {
                    sinkDone = true;
                    s.complete();
                }
            }
            missed = wip.addAndGet(-missed);
        } while (missed != 0);
    }

    // ---------------------------------------------------------------- poll thread

    private void pollLoop() {
        try {
            consumer = new KafkaConsumer<>(consumerProperties(), new StringDeserializer(), new ByteArrayDeserializer());
            consumer.subscribe(List.of(config.callsTopic()), new Rebalance());
            long backoff = 100;
            while (!stopped) {
                try {
                    applyCompletions();
                    maybeCommit(false);
                    updatePause();
                    ConsumerRecords<String, byte[]> records = consumer.poll(config.pollTimeout());
                    take(records);
                    drain();
                    updateLag();
                    backoff = 100;
                } catch (WakeupException e) {
                    // closing
                } catch (KafkaException e) {
                    log.warn("kafka bus {}: poll failed, retrying in {} ms: {}", config.clientId(), backoff, e.toString());
                    sleep(backoff);
                    backoff = Math.min(5_000, backoff * 2);
                }
            }
            shutdownConsumer();
        } catch (Throwable t) {
            log.error("kafka bus {}: poll thread failed", config.clientId(), t);
            FluxSink<BusMessage> s = sink;
            if (s != null && !sinkDone) {
                sinkDone = true;
                s.error(t);
            }
            if (consumer != null) {
                try {
                    consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
                } catch (RuntimeException ignored) {
                    // already failing
                }
            }
        } finally {
            pollerDone.complete(null);
        }
    }

    private void take(ConsumerRecords<String, byte[]> records) {
        for (ConsumerRecord<String, byte[]> r : records) {
            PartitionOffsets offsets = partitions.get(new TopicPartition(r.topic(), r.partition()));
            if (offsets == null || offsets.revoked) {
                continue;
            }
            offsets.polled(r.offset());
            byte[] value = r.value();
            if (value == null || value.length > config.maxEventBytes()) {
                rejectWithoutDelivery(r, offsets);
                continue;
            }
            buffer.add(new Polled(r, offsets));
            buffered.incrementAndGet();
        }
    }

    private void shutdownConsumer() {
        // stop fetching, forget what the executor never asked for, wait for what it is running
        try {
            consumer.pause(consumer.assignment());
        } catch (RuntimeException ignored) {
            // not assigned
        }
        buffer.clear();
        buffered.set(0);
        long deadline = System.nanoTime() + config.shutdownTimeout().toNanos();
        while (inflight.get() > 0 && System.nanoTime() < deadline) {
            applyCompletions();
            maybeCommit(false);
            try {
                consumer.poll(Duration.ofMillis(20)); // keeps the membership alive; partitions are paused
            } catch (WakeupException ignored) {
                // closing
            } catch (KafkaException e) {
                sleep(20);
            }
        }
        applyCompletions();
        if (inflight.get() > 0) {
            log.warn("kafka bus {}: {} records still running after {}; their partitions' next owner runs them again",
                    config.clientId(), inflight.get(), config.shutdownTimeout());
        }
        commitSync(partitions.values());
        consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(10)));
    }

    private void applyCompletions() {
        Completion c;
        while ((c = completed.poll()) != null) {
            PartitionOffsets offsets = partitions.get(c.partition);
            if (offsets != null && offsets.epoch == c.epoch) {
                offsets.completed(c.offset);
            }
        }
    }

    private void maybeCommit(boolean force) {
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
                    po.committed(om.offset());
                }
            });
        });
    }

    private void commitSync(Collection<PartitionOffsets> which) {
        Map<TopicPartition, OffsetAndMetadata> commit = toCommit(which);
        if (commit.isEmpty()) {
            return;
        }
        try {
            consumer.commitSync(commit, Duration.ofSeconds(10));
            commit.forEach((tp, om) -> {
                PartitionOffsets po = partitions.get(tp);
                if (po != null) {
                    po.committed(om.offset());
                }
            });
        } catch (KafkaException e) {
            log.warn("kafka bus {}: commit of {} failed: {}", config.clientId(), commit.keySet(), e.toString());
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> toCommit(Collection<PartitionOffsets> which) {
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        for (PartitionOffsets po : which) {
            long offset = po.toCommit();
            if (offset >= 0) {
                commit.put(po.partition, new OffsetAndMetadata(offset));
            }
        }
        return commit;
    }

    private void updatePause() {
        int waiting = buffered.get();
        if (!paused && waiting >= config.maxBufferedRecords()) {
            consumer.pause(consumer.assignment());
            paused = true;
        } else if (paused && waiting <= config.maxBufferedRecords() / 2) {
            consumer.resume(consumer.paused());
            paused = false;
        } else if (paused) {
            consumer.pause(consumer.assignment()); // partitions assigned since
        }
    }

    private void updateLag() {
        long sum = 0;
        boolean known = false;
        for (TopicPartition tp : consumer.assignment()) {
            var l = consumer.currentLag(tp);
            if (l.isPresent()) {
                sum += l.getAsLong();
                known = true;
            }
        }
        lag.set(known ? sum : (consumer.assignment().isEmpty() ? 0 : -1));
    }

    private void consumerWakeup() {
        KafkaConsumer<String, byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
            for (TopicPartition tp : assigned) {
                partitions.put(tp, new PartitionOffsets(tp, epochs.incrementAndGet()));
            }
            if (!assigned.isEmpty()) {
                log.info("kafka bus {}: assigned {}", config.clientId(), assigned);
            }
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
            if (revoked.isEmpty()) {
                return;
            }
            List<PartitionOffsets> gone = new ArrayList<>();
            for (TopicPartition tp : revoked) {
                PartitionOffsets po = partitions.get(tp);
                if (po != null) {
                    po.revoked = true; // no more records of it are handed over
                    gone.add(po);
                }
            }
            buffer.removeIf(p -> {
                boolean drop = p.offsets.revoked;
                if (drop) {
                    buffered.decrementAndGet();
                }
                return drop;
            });
            long deadline = System.nanoTime() + config.revokeTimeout().toNanos();
            while (gone.stream().anyMatch(po -> po.inflight.get() > 0) && System.nanoTime() < deadline) {
                applyCompletions();
                sleep(5);
            }
            applyCompletions();
            commitSync(gone);
            int left = gone.stream().mapToInt(po -> po.inflight.get()).sum();
            gone.forEach(po -> partitions.remove(po.partition, po));
            log.info("kafka bus {}: revoked {}{}", config.clientId(), revoked,
                    left > 0 ? " (" + left + " records still running will be run again by the new owner)" : "");
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> lost) {
            for (TopicPartition tp : lost) {
                PartitionOffsets po = partitions.remove(tp);
                if (po != null) {
                    po.revoked = true;
                }
            }
            buffer.removeIf(p -> {
                boolean drop = p.offsets.revoked;
                if (drop) {
                    buffered.decrementAndGet();
                }
                return drop;
            });
            log.warn("kafka bus {}: lost {} (no commit possible)", config.clientId(), lost);
        }
    }

    // ---------------------------------------------------------------- settling

    private void complete(ConsumerRecord<String, byte[]> record, PartitionOffsets offsets) {
        completed.add(new Completion(offsets.partition, offsets.epoch, record.offset()));
    }

    private void rejectWithoutDelivery(ConsumerRecord<String, byte[]> r, PartitionOffsets offsets) {
        byte[] value = r.value();
        String reason = value == null ? "record has no value"
                : "event of " + value.length + " bytes is above the " + config.maxEventBytes() + "-byte limit";
        log.warn("kafka bus {}: {}-{}@{} dead-lettered: {}", config.clientId(), r.topic(), r.partition(), r.offset(), reason);
        byte[] kept = value == null ? new byte[0] : Arrays.copyOf(value, Math.min(value.length, EventKeys.SCAN_LIMIT));
        Mono<Void> answer = Mono.empty();
        EventKeys keys = value == null ? EventKeys.NONE : EventKeys.read(value);
        String streamId = keys.streamId() != null ? keys.streamId() : r.key();
        if (streamId != null) {
            answer = publish(List.of(new ErrorEvent(streamId, keys.turnId(), ErrorCode.BAD_EVENT, reason)));
        }
        send(deadLetterRecord(r, kept, reason, r.key()))
                .then(answer)
                .subscribe(null,
                        e -> log.warn("kafka bus {}: dead-lettering {}@{} failed; it will be read again after a restart: {}",
                                config.clientId(), offsets.partition, r.offset(), e.toString()),
                        () -> complete(r, offsets));
    }

    private ProducerRecord<String, byte[]> deadLetterRecord(ConsumerRecord<String, byte[]> source, byte[] value,
                                                            String reason, String key) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(HEADER_REASON, reason.getBytes(StandardCharsets.UTF_8));
        if (source != null) {
            headers.add(HEADER_SOURCE, (source.topic() + "-" + source.partition() + "@" + source.offset())
                    .getBytes(StandardCharsets.UTF_8));
        }
        headers.add("toolbus.client", config.clientId().getBytes(StandardCharsets.UTF_8));
        return new ProducerRecord<>(config.deadLetterTopic(), null, key, value, headers);
    }

    private Mono<Void> send(ProducerRecord<String, byte[]> record) {
        return topicsReady.then(Mono.<Void>create(done -> producer.send(record, (md, error) -> {
            if (error != null) {
                done.error(error);
            } else {
                done.success();
            }
        })).publishOn(completions));
    }

    /** One record handed to the executor. */
    private final class Message implements BusMessage {
        private final ConsumerRecord<String, byte[]> record;
        private final PartitionOffsets offsets;
        private final AtomicBoolean settled = new AtomicBoolean();

        Message(ConsumerRecord<String, byte[]> record, PartitionOffsets offsets) {
            this.record = record;
            this.offsets = offsets;
        }

        @Override
        public byte[] payload() {
            return record.value();
        }

        /** Marks the record complete; its offset is committed with the next commit that can reach it. */
        @Override
        public Mono<Void> ack() {
            return Mono.fromRunnable(() -> {
                if (settled.compareAndSet(false, true)) {
                    offsets.inflight.decrementAndGet();
                    inflight.decrementAndGet();
                    complete(record, offsets);
                }
            });
        }

        @Override
        public Mono<Void> deadLetter(String reason) {
            return send(deadLetterRecord(record, record.value(), reason, record.key()));
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

    private record Polled(ConsumerRecord<String, byte[]> record, PartitionOffsets offsets) {
    }

    private record Completion(TopicPartition partition, long epoch, long offset) {
    }

    // ---------------------------------------------------------------- setup

    private void createTopics() {
        if (!config.createTopics()) {
            return;
        }
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, config.clientId() + "-admin");
        try (Admin admin = Admin.create(p)) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = new ArrayList<>();
            Optional<Short> rf = config.replicationFactor() == 0 ? Optional.empty() : Optional.of(config.replicationFactor());
            for (String topic : List.of(config.callsTopic(), config.resultsTopic(), config.deadLetterTopic())) {
                if (!existing.contains(topic)) {
                    missing.add(new NewTopic(topic, Optional.of(config.topicPartitions()), rf));
                }
            }
            if (missing.isEmpty()) {
                warmUpProducer();
                return;
            }
            admin.createTopics(missing).values().forEach((topic, f) -> {
                try {
                    f.get(30, TimeUnit.SECONDS);
                    log.info("kafka bus {}: created topic {}", config.clientId(), topic);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("cannot create topic " + topic + ": " + e.getCause(), e.getCause());
                    }
                } catch (Exception e) {
                    throw new IllegalStateException("cannot create topic " + topic + ": " + e, e);
                }
            });
            warmUpProducer();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("cannot list topics on " + config.bootstrapServers() + ": " + e, e);
        }
    }

    /** Fetches the output topics' metadata so that the first sends do not wait for it. */
    private void warmUpProducer() {
        try {
            producer.partitionsFor(config.resultsTopic());
            producer.partitionsFor(config.deadLetterTopic());
        } catch (KafkaException e) {
            log.debug("metadata warm-up failed: {}", e.toString());
        }
    }

    private Properties consumerProperties() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, config.clientId());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"); // a backlog from before the group existed is run
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(config.maxPollRecords()));
        p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.putAll(config.consumerProperties());
        return p;
    }

    private Properties producerProperties() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(ProducerConfig.CLIENT_ID_CONFIG, config.clientId() + "-producer");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "2");
        p.putAll(config.producerProperties());
        return p;
    }

    private void registerMeters(MeterRegistry registry) {
        Tags tags = Tags.of("bus", "kafka", "topic", config.callsTopic(), "group", config.groupId());
        Gauge.builder("toolbus.bus.lag", lag, AtomicLong::get)
                .description("records of the assigned partitions not yet polled")
                .tags(tags).register(registry);
        Gauge.builder("toolbus.bus.inflight", inflight, AtomicInteger::get)
                .description("records handed to this instance's executor and not yet completed")
                .tags(tags.and("client", config.clientId())).register(registry);
        Gauge.builder("toolbus.bus.buffered", buffered, AtomicInteger::get)
                .description("records polled and not yet requested by the executor")
                .tags(tags.and("client", config.clientId())).register(registry);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Builder of {@link KafkaBus}. */
    public static final class Builder {
        private KafkaBusConfig config = KafkaBusConfig.defaults();
        private MeterRegistry meterRegistry;
        private EventCodec codec = EventCodec.defaults();

        private Builder() {
        }

        public Builder config(KafkaBusConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /** Where the gauges {@code toolbus.bus.lag}, {@code .inflight} and {@code .buffered} go. */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        public Builder codec(EventCodec codec) {
            this.codec = Objects.requireNonNull(codec, "codec");
            return this;
        }

        /** Builds the bus (the producer connects lazily; topics are created on {@link KafkaBus#start()}). */
        public KafkaBus build() {
            return new KafkaBus(this);
        }
    }
}
