package dev.toolbus.bus.kafka;

import dev.toolbus.metrics.ToolMetrics;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.spi.CallJournal;
import dev.toolbus.spi.ControlRequests;
import dev.toolbus.spi.CutResults;
import dev.toolbus.spi.SessionGrants;
import dev.toolbus.spi.TurnLedger;
import dev.toolbus.spi.TurnState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.scheduler.Scheduler;

/**
 * The turn state of a {@link KafkaBus}: a compacted state topic ({@link KafkaBusConfig#stateTopic()})
 * with as many partitions as the calls topic, each stream's records on the partition of its calls. The
 * instance that owns a calls partition owns the state of its streams: on assignment it writes its owner
 * marker, reads the partition to past it ({@link StateRestore}) and only then takes the partition's
 * turns (the changelog pattern of Kafka Streams); on revocation it drops it. Decisions are made in
 * memory ({@link StateStore}) and made durable in the topic; a stalled owner is fenced by the next
 * owner's marker ({@link OwnerFence}). Records expire (checked on read) and are swept into tombstones,
 * which compaction removes. The ledger of idempotent turns stays the bus's own ({@link LedgerTopic}) at
 * exactly once ({@link TurnLedger#none()} here); at least once it is the executor's in-memory one.
 */
final class KafkaTurnState implements TurnState, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KafkaTurnState.class);

    /** The longest a journal write waits for its acknowledgement and its fence. */
    static final Duration JOURNAL_TIMEOUT = Duration.ofSeconds(30);

    private final KafkaBusConfig config;
    private final String topic;
    private final StateStore store;
    private final StateWriter writer;
    private final StateRestore restore;
    private final OwnerFence fence;
    private final StateCodec codec;
    private final IntConsumer onFenced;
    private final TurnLedger ledger;
    private final KafkaCallJournal journal;
    private final KafkaControlRequests requests;
    private final KafkaSessionGrants grants;
    private final KafkaCutResults cutResults;

    /**
     * @param tx the bus's transactions (exactly once), or null
     * @param onFenced told of a partition another owner took while this one did not notice (fence thread)
     * @param epochMillis the clock records expire on
     */
    KafkaTurnState(KafkaBusConfig config, EventCodec eventCodec, StateTransactions tx, IntConsumer onFenced,
                   LongSupplier epochMillis, Scheduler completions) {
        this.config = config;
        this.topic = config.stateTopic();
        this.codec = new StateCodec(eventCodec);
        this.store = new StateStore(config.turnStateSettings(), codec, topic, epochMillis);
        this.writer = new StateWriter(config, tx, completions);
        this.restore = new StateRestore(config, topic);
        this.onFenced = onFenced;
        this.fence = new OwnerFence(config, topic, codec, this::fenced, this::sweep);
        this.ledger = config.delivery() == KafkaDelivery.EXACTLY_ONCE ? TurnLedger.none() : null;
        this.journal = new KafkaCallJournal(store, writer, fence, JOURNAL_TIMEOUT);
        this.requests = new KafkaControlRequests(store, writer);
        this.grants = new KafkaSessionGrants(store, writer);
        this.cutResults = new KafkaCutResults(store, writer);
    }

    @Override
    public TurnLedger ledger() {
        return ledger;
    }

    @Override
    public CallJournal journal() {
        return journal;
    }

    @Override
    public ControlRequests requests() {
        return requests;
    }

    @Override
    public SessionGrants grants() {
        return grants;
    }

    @Override
    public CutResults cutResults() {
        return cutResults;
    }

    /** The state topic's partition count (the calls topic's). */
    void partitions(int n) {
        store.partitions(n);
    }

    /**
     * Takes over these partitions (blocking; the bus's poll thread calls it on assignment, before their
     * turns are handed over): writes this owner's marker to each, reads each to past it, then owns them.
     * A partition whose marker cannot be written or that cannot be read in time is not owned: calls that
     * are not retry-safe fail there ({@code STATE_UNAVAILABLE}) until it is assigned again.
     */
    void assign(Collection<Integer> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        long start = System.nanoTime();
        String token = config.clientId() + "/" + UUID.randomUUID().toString().substring(0, 8);
        List<ProducerRecord<String, byte[]>> markers = new ArrayList<>(partitions.size());
        byte[] marker = codec.owner(token, config.clientId(), store.now());
        for (int p : partitions) {
            markers.add(new ProducerRecord<>(topic, p, StateKeys.OWNER, marker));
        }
        Map<Integer, Long> offsets;
        try {
            offsets = writer.direct(markers).block(JOURNAL_TIMEOUT);
        } catch (RuntimeException e) {
            log.error("turn state {}: cannot write the owner marker of partitions {}; calls that are not retry-safe fail "
                    + "there until they are assigned again: {}", topic, partitions, e.toString());
            return;
        }
        Map<Integer, Set<String>> expired = new HashMap<>();
        int[] count = {0};
        Set<Integer> read = restore.read(offsets, (p, key, value) -> {
            count[0]++;
            store.restore(p, key, value, expired.computeIfAbsent(p, x -> new HashSet<>()));
        }, config.stateRestoreTimeout());
        List<ProducerRecord<String, byte[]>> tombstones = new ArrayList<>();
        Set<Integer> unread = new HashSet<>(partitions);
        unread.removeAll(read);
        store.forget(unread);
        List<Integer> over = store.overBounds(read);
        for (int p : over) {
            log.error("turn state {}: partition {} holds more records than the bounds leave room for (journalMaxEntries/"
                    + "Bytes, requestsMaxEntries/Bytes of this instance, with the partitions it owns already); it is not "
                    + "taken: calls there that are not retry-safe fail until it is assigned again or records expire",
                    topic, p);
        }
        for (int p : partitions) {
            if (!read.contains(p)) {
                log.error("turn state {}: partition {} not read to its end within {}; calls there that are not "
                        + "retry-safe fail until it is assigned again", topic, p, config.stateRestoreTimeout());
                continue;
            }
            if (over.contains(p)) {
                continue;
            }
            store.own(p, new StateStore.Owned(token, offsets.get(p)));
            fence.watch(p, token, offsets.get(p));
            tombstones.addAll(store.tombstones(p, expired.getOrDefault(p, Set.of())));
        }
        writer.direct(tombstones).subscribe(null, e -> log.warn("turn state {}: tombstones of expired records not written: {}",
                topic, e.toString()));
        Set<Integer> taken = new HashSet<>(read);
        over.forEach(taken::remove);
        log.info("turn state {}: took over partitions {} ({} records read in {} ms)", topic, taken, count[0],
                (System.nanoTime() - start) / 1_000_000);
    }

    /** Drops partitions that were revoked or lost. */
    void revoke(Collection<Integer> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        store.drop(partitions);
        fence.unwatch(partitions);
    }

    /** Takes over every partition of the state topic (a state used without a bus: tests, tools). */
    void assignAll() {
        int n = store.partitions();
        List<Integer> all = new ArrayList<>(n);
        for (int p = 0; p < n; p++) {
            all.add(p);
        }
        assign(all);
    }

    private void fenced(int partition) {
        store.drop(List.of(partition));
        onFenced.accept(partition);
    }

    private void sweep() {
        StateStore.Swept s = store.sweep();
        writer.direct(s.journal()).subscribe(null, e -> log.warn("turn state {}: journal tombstones not written: {}",
                topic, e.toString()));
        writer.written(s.other()).subscribe(null, e -> log.warn("turn state {}: tombstones not written: {}", topic,
                e.toString()));
    }

    /** Registers the gauges {@code toolbus.state.records} and {@code toolbus.state.bytes} per facet. */
    void bind(MeterRegistry meters) {
        gauge(meters, "journal", store.journalTally);
        gauge(meters, "requests", store.requestsTally);
        gauge(meters, "grants", store.grantsTally);
        gauge(meters, "cut_results", store.cutsTally);
    }

    private void gauge(MeterRegistry meters, String facet, StateStore.Tally t) {
        Gauge.builder(ToolMetrics.STATE_RECORDS, t, x -> x.records).tag("facet", facet)
                .description("Records the turn state keeps").register(meters);
        Gauge.builder(ToolMetrics.STATE_BYTES, t, x -> x.bytes).tag("facet", facet).baseUnit("bytes")
                .description("Estimated bytes of the records the turn state keeps").register(meters);
    }

    @Override
    public void close() {
        fence.close();
        restore.close();
        writer.close();
    }
}
