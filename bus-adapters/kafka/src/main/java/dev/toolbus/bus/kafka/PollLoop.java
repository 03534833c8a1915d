package dev.toolbus.bus.kafka;

import dev.toolbus.spi.BusMessage;
import dev.toolbus.spi.BusSource;
import dev.toolbus.spi.DrainLoop;
import dev.toolbus.protocol.EventIdPeek;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.EventCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;

/**
 * The poll thread: owns the {@code KafkaConsumer}, hands records to the executor as it requests them
 * through the shared {@link DrainLoop} (control events before turns that wait in the buffer, so a
 * cancel is not stuck behind a backlog), pauses the partitions when too many wait, lets the
 * {@link Settlement} commit, and handles rebalances through {@link Rebalance}.
 */
final class PollLoop implements BusSource {

    private static final Logger log = LoggerFactory.getLogger(PollLoop.class);

    private final KafkaBusConfig config;
    private final Settlement settlement;
    private final DeadLetters deadLetters;
    private final EventCodec codec;
    /** Finished turns, with the turns running now and their waiting duplicates (null: idempotent turns off). */
    private final LedgerTopic ledger;
    /** The turn state (null: kept in the executor). */
    private final KafkaTurnState state;
    /** Partitions the state's fence saw another owner take (any thread adds, the poll thread handles). */
    private final ConcurrentLinkedQueue<Integer> fenced = new ConcurrentLinkedQueue<>();
    private Rebalance rebalance;
    private final Map<String, KafkaMessage> active = new java.util.HashMap<>();
    private final Map<String, List<Waiting>> joined = new java.util.HashMap<>();
    final Map<TopicPartition, PartitionOffsets> partitions = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<KafkaMessage> controls = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<KafkaMessage> turns = new ConcurrentLinkedQueue<>();
    /** Per record key, records waiting in {@link #turns}: a control event never overtakes its own stream. */
    private final ConcurrentHashMap<String, Integer> waitingByKey = new ConcurrentHashMap<>();
    final AtomicInteger buffered = new AtomicInteger();
    final AtomicInteger inflight = new AtomicInteger();
    final AtomicLong lag = new AtomicLong(-1);
    final AtomicLong pending = new AtomicLong();
    final CompletableFuture<Void> done = new CompletableFuture<>();
    private final DrainLoop drain;
    volatile boolean stopped;
    /** The receiver subscribed and the poll thread was started. */
    volatile boolean started;
    private volatile KafkaConsumer<String, byte[]> consumer;
    private boolean paused;

    PollLoop(KafkaBusConfig config, Settlement settlement, DeadLetters deadLetters, EventCodec codec, LedgerTopic ledger,
             KafkaTurnState state) {
        this.config = config;
        this.settlement = settlement;
        this.deadLetters = deadLetters;
        this.codec = codec;
        this.ledger = ledger;
        this.state = state;
        this.drain = new DrainLoop("kafka bus " + config.clientId(), this);
        settlement.onTurnCommitted(this::turnCommitted);
    }

    /**
     * The turn state's fence saw another owner take this partition (any thread): its running turns are
     * moved at once (their final events are refused), the rest happens on the poll thread.
     */
    void fenced(int partition) {
        settlement.fenced(partition);
        fenced.add(partition);
        KafkaConsumer<String, byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    /** Poll thread: the turn is finished; its duplicates that waited for it are complete too. */
    private void turnCommitted(KafkaMessage m, ProducerRecord<String, byte[]> ledgerRecord) {
        String key = ledgerRecord.key();
        active.remove(key, m);
        ledger.put(key, ledgerRecord.value(), System.currentTimeMillis());
        List<Waiting> waiting = joined.remove(key);
        if (waiting != null) {
            buffered.addAndGet(-waiting.size());
            for (Waiting w : waiting) {
                if (partitions.get(w.offsets.partition) == w.offsets) {
                    settlement.reject(w.record, w.offsets, List.of()); // joined the first run: nothing to write
                }
            }
        }
    }

    /**
     * Idempotent turns (poll thread): true when the record is settled here because its turn finished
     * before (its recorded events are written again, marked replayed) or is running now (it waits for
     * that run and completes with it).
     */
    private boolean settledAsRepeat(ConsumerRecord<String, byte[]> r, PartitionOffsets offsets, EventIdPeek peek,
                                    KafkaMessage m) {
        if (ledger == null || !ledger.enabled() || !peek.isTurn()) {
            return false;
        }
        String key = LedgerTopic.turnKey(peek.streamId(), peek.turnId());
        List<byte[]> recorded = ledger.find(key);
        if (recorded != null) {
            log.info("kafka bus {}: turn {} of {} finished before; its {} events are written again, marked replayed",
                    config.clientId(), peek.turnId(), peek.streamId(), recorded.size());
            settlement.reject(r, offsets, ledger.replay(peek.streamId(), recorded));
            return true;
        }
        KafkaMessage running = active.get(key);
        if (running != null && running.offsets == offsets && partitions.get(offsets.partition) == offsets) {
            joined.computeIfAbsent(key, k -> new ArrayList<>()).add(new Waiting(r, offsets));
            buffered.incrementAndGet(); // counts towards the pause threshold like a buffered record
            return true;
        }
        active.put(key, m);
        return false;
    }

    private record Waiting(ConsumerRecord<String, byte[]> record, PartitionOffsets offsets) {
    }

    /** The records, as the executor requests them (one subscriber); subscribing starts the poll thread. */
    Flux<BusMessage> flux() {
        return drain.flux();
    }

    @Override
    public void started() {
        started = true;
        Thread t = new Thread(this::run, "toolbus-kafka-poll-" + config.clientId());
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void cancelled() {
        stopped = true;
    }

    void stop() {
        stopped = true;
        drain.drain();
        KafkaConsumer<String, byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    // ---------------------------------------------------------------- hand-over (the drain loop's source)

    /** Control events first, then turns; records of a revoked partition are dropped (its next owner reads them). */
    @Override
    public BusMessage poll() {
        while (!stopped) {
            KafkaMessage m = controls.poll();
            if (m == null) {
                m = turns.poll();
                if (m != null) {
                    unwait(m);
                }
            }
            if (m == null) {
                return null;
            }
            buffered.decrementAndGet();
            if (m.offsets.revoked) {
                continue;
            }
            m.offsets.inflight.incrementAndGet();
            m.offsets.handedOver.add(m);
            inflight.incrementAndGet();
            settlement.handedOver(m);
            return m;
        }
        return null;
    }

    @Override
    public boolean finished() {
        return stopped;
    }

    /** Not handed over after all: no longer in flight; uncommitted, so the partition's next owner runs it. */
    @Override
    public void release(BusMessage message, Throwable error) {
        ((KafkaMessage) message).settle();
    }

    private void unwait(KafkaMessage m) {
        waitingByKey.computeIfPresent(m.record.key() != null ? m.record.key() : "", (k, n) -> n == 1 ? null : n - 1);
    }

    // ---------------------------------------------------------------- poll thread

    private void run() {
        try {
            consumer = new KafkaConsumer<>(consumerProperties(config), new StringDeserializer(), new ByteArrayDeserializer());
            long backoff = 100;
            boolean started = false;
            while (!stopped && !started) {
                try {
                    settlement.start();
                    started = true;
                } catch (KafkaException e) {
                    log.warn("kafka bus {}: producer not ready, retrying in {} ms: {}", config.clientId(), backoff, e.toString());
                    sleep(backoff);
                    backoff = Math.min(5_000, backoff * 2);
                }
            }
            rebalance = new Rebalance(config, consumer, settlement, partitions, ledger, state, this::dropBuffered,
                    this::forgetRunning);
            consumer.subscribe(List.of(config.callsTopic()), rebalance);
            Duration pollTimeout = config.delivery() == KafkaDelivery.EXACTLY_ONCE
                    && config.transactionInterval().compareTo(config.pollTimeout()) < 0
                    ? config.transactionInterval() : config.pollTimeout();
            backoff = 100;
            while (!stopped) {
                try {
                    Integer f;
                    while ((f = fenced.poll()) != null) {
                        rebalance.fenced(new TopicPartition(config.callsTopic(), f));
                    }
                    settlement.tick(consumer, partitions, false);
                    updatePause();
                    ConsumerRecords<String, byte[]> records = consumer.poll(pollTimeout);
                    take(records);
                    drain.drain();
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
            drain.fail(t);
            if (consumer != null) {
                try {
                    consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
                } catch (RuntimeException ignored) {
                    // already failing
                }
            }
        } finally {
            try {
                settlement.close();
            } finally {
                done.complete(null);
            }
        }
    }

    private void take(ConsumerRecords<String, byte[]> records) {
        List<KafkaMessage> taken = new ArrayList<>(records.count());
        Set<PartitionOffsets> fresh = new HashSet<>();
        for (ConsumerRecord<String, byte[]> r : records) {
            PartitionOffsets offsets = partitions.get(new TopicPartition(r.topic(), r.partition()));
            if (offsets == null || offsets.revoked) {
                continue;
            }
            if (offsets.fresh) {
                fresh.add(offsets);
            }
            int deliveries = offsets.polled(r.offset());
            if (deliveries == 0) {
                continue; // the previous owner of the partition completed it
            }
            byte[] value = r.value();
            if (value == null || value.length > config.maxEventBytes()) {
                reject(r, offsets, value == null ? "record has no value"
                        : "event of " + value.length + " bytes is above the " + config.maxEventBytes() + "-byte limit", 0);
                continue;
            }
            if (deliveries > config.maxDeliveries()) {
                reject(r, offsets, "delivered " + deliveries + " times without completing (maxDeliveries "
                        + config.maxDeliveries() + ")", deliveries);
                continue;
            }
            EventIdPeek peek = EventIdPeek.of(value);
            KafkaMessage m = new KafkaMessage(r, offsets, peek, settlement, deadLetters, inflight);
            if (settledAsRepeat(r, offsets, peek, m)) {
                continue;
            }
            taken.add(m);
        }
        if (!fresh.isEmpty()) {
            // the first records after an assignment are counted as delivered before any of them runs, so a
            // record that kills its instance at once is still counted towards maxDeliveries
            fresh.forEach(po -> po.fresh = false);
            settlement.flush(consumer, partitions, fresh);
        }
        for (KafkaMessage m : taken) {
            ConsumerRecord<String, byte[]> r = m.record;
            EventIdPeek peek = m.peek;
            String key = r.key() != null ? r.key() : "";
            if (peek.isControl() && !waitingByKey.containsKey(key)) {
                controls.add(m);
            } else {
                waitingByKey.merge(key, 1, Integer::sum);
                turns.add(m);
            }
            buffered.incrementAndGet();
        }
    }

    /**
     * Too large, without value, or a poison record: dead-lettered (and an error event on its stream when
     * one can be read).
     */
    private void reject(ConsumerRecord<String, byte[]> r, PartitionOffsets offsets, String reason, int deliveries) {
        byte[] value = r.value();
        log.warn("kafka bus {}: {}-{}@{} dead-lettered: {}", config.clientId(), r.topic(), r.partition(), r.offset(), reason);
        byte[] kept = value == null ? new byte[0] : Arrays.copyOf(value, Math.min(value.length, EventIdPeek.SCAN_LIMIT));
        List<ProducerRecord<String, byte[]>> out = new ArrayList<>(2);
        ProducerRecord<String, byte[]> dead = deadLetters.record(r, kept, reason, r.key());
        if (deliveries > 0) {
            dead.headers().add(KafkaBus.HEADER_DELIVERIES, Integer.toString(deliveries).getBytes(StandardCharsets.UTF_8));
        }
        out.add(dead);
        EventIdPeek keys = EventIdPeek.of(value);
        String streamId = keys.streamId() != null ? keys.streamId() : r.key();
        if (streamId != null) {
            ErrorEvent event = deliveries > 0
                    ? new ErrorEvent(streamId, keys.turnId(), ErrorCode.REJECTED, "turn "
                            + (keys.turnId() != null ? keys.turnId() + " " : "") + "was " + reason
                            + "; it was moved to the dead-letter topic")
                    : new ErrorEvent(streamId, keys.turnId(), ErrorCode.BAD_EVENT, reason);
            byte[] error = codec.encodeToBytes(event);
            out.add(new ProducerRecord<>(config.resultsTopic(), streamId, error));
        }
        settlement.reject(r, offsets, out);
    }

    private void shutdownConsumer() {
        // stop fetching, forget what the executor never asked for, wait for what it is running
        try {
            consumer.pause(consumer.assignment());
        } catch (RuntimeException ignored) {
            // not assigned
        }
        controls.clear();
        turns.clear();
        waitingByKey.clear();
        joined.clear(); // not committed: the partition's next owner settles them from the ledger
        buffered.set(0);
        long deadline = System.nanoTime() + config.shutdownTimeout().toNanos();
        while (inflight.get() > 0 && System.nanoTime() < deadline) {
            settlement.tick(consumer, partitions, false);
            try {
                consumer.poll(Duration.ofMillis(20)); // keeps the membership alive; partitions are paused
            } catch (WakeupException ignored) {
                // closing
            } catch (KafkaException e) {
                sleep(20);
            }
        }
        if (inflight.get() > 0) {
            log.warn("kafka bus {}: {} records still running after {}; their partitions' next owner runs them again",
                    config.clientId(), inflight.get(), config.shutdownTimeout());
        }
        settlement.flush(consumer, partitions, partitions.values());
        consumer.close(CloseOptions.timeout(Duration.ofSeconds(10)));
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
        long p = 0;
        for (PartitionOffsets po : partitions.values()) {
            p += po.outstanding();
        }
        pending.set(p);
    }

    private void forgetRunning(List<PartitionOffsets> gone) {
        // still running here, run again by the partition's next owner: no longer in flight on this instance
        gone.forEach(po -> po.handedOver.forEach(KafkaMessage::release));
        active.values().removeIf(m -> gone.contains(m.offsets));
        joined.values().forEach(l -> {
            int before = l.size();
            l.removeIf(w -> gone.contains(w.offsets));
            buffered.addAndGet(l.size() - before);
        });
        joined.values().removeIf(List::isEmpty);
    }

    private void dropBuffered() {
        for (ConcurrentLinkedQueue<KafkaMessage> q : List.of(controls, turns)) {
            q.removeIf(m -> {
                boolean drop = m.offsets.revoked;
                if (drop) {
                    buffered.decrementAndGet();
                    if (q == turns) {
                        unwait(m);
                    }
                }
                return drop;
            });
        }
    }

    /** The group consumer's settings: the bus's, then the failover timing, then the operator's overrides. */
    static java.util.Properties consumerProperties(KafkaBusConfig config) {
        java.util.Properties p = new java.util.Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, config.clientId());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"); // a backlog from before the group existed is run
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(config.maxPollRecords()));
        p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        if (config.sessionTimeout() != null) {
            p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Long.toString(config.sessionTimeout().toMillis()));
        }
        if (config.heartbeatInterval() != null) {
            p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Long.toString(config.heartbeatInterval().toMillis()));
        }
        p.putAll(config.consumerProperties());
        return p;
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
