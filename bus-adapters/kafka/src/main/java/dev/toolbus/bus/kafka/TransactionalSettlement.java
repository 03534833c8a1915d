package dev.toolbus.bus.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * Exactly once: a turn's final events (and a record's dead letter) are staged with its record; when
 * the record is acknowledged, the poll thread writes them and the record's offset in one Kafka
 * transaction ({@code sendOffsetsToTransaction} with the consumer's group metadata, so an instance
 * that lost its partitions in a rebalance is fenced). Everything else published (events while a turn
 * runs, answers to non-turn input) goes into the next transaction on its own. A unit is only
 * committed together with an offset position or offset metadata that marks its record complete, so
 * the next owner of a partition never runs a record whose events are visible. A failed transaction is
 * aborted and its units are retried, except one whose commit timed out: the broker may have made it, so
 * the same commit is asked again until it is answered (what Kafka allows then, besides closing the
 * producer); units of partitions that moved are dropped (their new owner
 * runs them), and so are the final events of a turn that was still running when its partition moved
 * ({@link MovedTurns}). Staged bytes are bounded by {@link #MAX_STAGED_BYTES}. Units are completed on the poll
 * thread once their transaction committed (never on the producer's I/O thread), and the executor
 * continues there, as it does for the records the poll thread hands over: no thread hop per unit.
 */
final class TransactionalSettlement implements Settlement, StateTransactions {

    private static final Logger log = LoggerFactory.getLogger(TransactionalSettlement.class);

    /** Bytes of records staged and not yet committed, above which publishing fails. */
    static final long MAX_STAGED_BYTES = 64L << 20;
    /** How long after a commit its markers are surely written, when nothing failed. */
    static final long MARKER_GRACE_NANOS = 15_000_000_000L;

    private final KafkaBusConfig config;
    private final RunningTurns running = new RunningTurns();
    private final ConcurrentLinkedQueue<Unit> incoming = new ConcurrentLinkedQueue<>();
    private final AtomicLong stagedBytes = new AtomicLong();
    /** Poll thread only. */
    private final List<Unit> ready = new ArrayList<>();
    private KafkaProducer<String, byte[]> producer;
    private final LedgerTopic ledger;
    private java.util.function.BiConsumer<KafkaMessage, ProducerRecord<String, byte[]>> turnCommitted = (m, r) -> { };
    private long lastTxNanos = System.nanoTime();
    private long backoffUntilNanos;
    private int failures;
    /** Poll thread: the transaction being committed, kept while its commit timed out and is asked again. */
    private Committing committing;
    /** Poll thread: what committed transactions wrote lately, to write again what a lost marker left hanging. */
    private final WrittenRecords written = new WrittenRecords();
    /** The open transactions of this bus's producer the last sweep found (the latest report only). */
    private final AtomicReference<OwnOpen> ownOpen = new AtomicReference<>();
    private HangingTransactions sweeper;
    /** Records of committed transactions written again after a lost marker (for the meters and tests). */
    final AtomicLong rewritten = new AtomicLong();

    private final long markerGraceNanos;

    TransactionalSettlement(KafkaBusConfig config, LedgerTopic ledger) {
        this(config, ledger, MARKER_GRACE_NANOS);
    }

    TransactionalSettlement(KafkaBusConfig config, LedgerTopic ledger, long markerGraceNanos) {
        this.config = config;
        this.ledger = ledger;
        this.markerGraceNanos = markerGraceNanos;
    }

    @Override
    public void onTurnCommitted(java.util.function.BiConsumer<KafkaMessage, ProducerRecord<String, byte[]>> listener) {
        this.turnCommitted = listener;
    }

    /**
     * Judges the open transactions of this bus's producer that {@code sweeper} finds, instead of the
     * sweep aborting them: see {@link #recoverHanging(Map)}.
     */
    void watch(HangingTransactions sweeper) {
        this.sweeper = sweeper;
        sweeper.onOwnOpen(this::ownOpen);
    }

    /** A sweep's report of this bus's producer's open transactions (any thread); judged on the poll thread. */
    void ownOpen(List<HangingTransactions.Open> found) {
        ownOpen.set(new OwnOpen(found, System.nanoTime()));
    }

    @Override
    public void start() {
        producer = Producers.transactional(config);
        Producers.warmUp(producer, config);
    }

    @Override
    public void handedOver(KafkaMessage m) {
        running.handedOver(m);
    }

    @Override
    public Mono<Void> publish(String key, String turnId, boolean finalEvents, List<ProducerRecord<String, byte[]>> records) {
        if (finalEvents && key != null && turnId != null) {
            KafkaMessage m;
            try {
                m = running.forFinalEvents(key, turnId);
            } catch (IllegalStateException moved) {
                return Mono.error(moved);
            }
            if (m != null && stage(m, records)) {
                return Mono.empty(); // written with the record's offset when it is acknowledged
            }
        }
        return standalone(records, bytes(records));
    }

    /** Stages records with a message's offset; false when it is settled already (or the bound is reached). */
    private boolean stage(KafkaMessage m, List<ProducerRecord<String, byte[]>> records) {
        long bytes = bytes(records);
        if (!reserve(bytes)) {
            return false;
        }
        if (m.stage(records)) {
            return true;
        }
        stagedBytes.addAndGet(-bytes);
        return false;
    }

    @Override
    public boolean stageWithTurn(String streamId, String turnId, List<ProducerRecord<String, byte[]>> records) {
        KafkaMessage m = running.turn(RunningTurns.key(streamId, turnId));
        return m != null && stage(m, records);
    }

    @Override
    public boolean stageWithAnswer(String streamId, String requestId, List<ProducerRecord<String, byte[]>> records) {
        KafkaMessage m = running.answer(streamId, requestId);
        return m != null && stage(m, records);
    }

    @Override
    public Mono<Void> write(List<ProducerRecord<String, byte[]>> records) {
        return standalone(records, bytes(records));
    }

    private Mono<Void> standalone(List<ProducerRecord<String, byte[]>> records, long bytes) {
        return Mono.<Void>create(sink -> {
            if (!reserve(bytes)) {
                sink.error(new IllegalStateException("more than " + MAX_STAGED_BYTES + " bytes wait for a Kafka transaction"));
                return;
            }
            incoming.add(new Unit(null, -1, records, bytes, sink));
        });
    }

    @Override
    public Mono<Void> ack(KafkaMessage m) {
        if (!m.settle()) {
            return m.released() ? Mono.error(new IllegalStateException("partition " + m.offsets.partition
                    + " moved to another instance")) : Mono.empty();
        }
        running.settled(m);
        List<ProducerRecord<String, byte[]>> staged = m.takeStaged();
        ProducerRecord<String, byte[]> ledgerRecord = null;
        if (ledger != null && ledger.enabled() && m.peek.isTurn()) {
            ledgerRecord = ledger.record(m.record.partition(), LedgerTopic.turnKey(m.peek.streamId(), m.peek.turnId()), staged);
            stagedBytes.addAndGet(bytes(List.of(ledgerRecord))); // released with the unit, like the staged records
            List<ProducerRecord<String, byte[]>> withLedger = new ArrayList<>(staged.size() + 1);
            withLedger.addAll(staged);
            withLedger.add(ledgerRecord);
            staged = withLedger;
        }
        List<ProducerRecord<String, byte[]>> records = staged;
        ProducerRecord<String, byte[]> recorded = ledgerRecord;
        long bytes = bytes(records);
        return Mono.<Void>create(sink -> incoming.add(new Unit(m.offsets, m.record.offset(), records, bytes, sink, m, recorded)));
    }

    @Override
    public Mono<Void> deadLetter(KafkaMessage m, ProducerRecord<String, byte[]> record) {
        if (stage(m, List.of(record))) {
            return Mono.empty();
        }
        return standalone(List.of(record), bytes(List.of(record)));
    }

    @Override
    public void reject(ConsumerRecord<String, byte[]> source, PartitionOffsets offsets, List<ProducerRecord<String, byte[]>> records) {
        long bytes = bytes(records);
        stagedBytes.addAndGet(bytes);
        ready.add(new Unit(offsets, source.offset(), records, bytes, null));
        offsets.completed(source.offset());
    }

    @Override
    public void tick(Consumer<String, byte[]> consumer, Map<TopicPartition, PartitionOffsets> partitions, boolean force) {
        Unit u;
        while ((u = incoming.poll()) != null) {
            if (u.offsets != null) {
                if (partitions.get(u.offsets.partition) != u.offsets) {
                    stagedBytes.addAndGet(-u.bytes);
                    u.fail(new IllegalStateException("partition " + u.offsets.partition + " moved to another instance"));
                    continue;
                }
                u.offsets.completed(u.offset);
            }
            ready.add(u);
        }
        if (committing == null && ownOpen.get() != null) {
            recoverHanging(partitions);
        }
        long now = System.nanoTime();
        if (!force && (now - lastTxNanos < config.transactionInterval().toNanos() || now < backoffUntilNanos)) {
            return;
        }
        commit(consumer, partitions, partitions.values());
    }

    /**
     * Between transactions: an open transaction of this bus's producer hangs when the sweep judged it so,
     * or when the coordinator has no such transaction with its partition and a transaction this instance
     * committed {@link #MARKER_GRACE_NANOS} or longer before the sweep wrote there at or after its first
     * offset (that transaction's marker would have ended it), however recently the producer wrote. Such a
     * transaction is aborted, and the records committed transactions had written into it are written
     * again, in their order, first in the next transaction: the group coordinator committed their input
     * offsets, so the abort alone would lose them. An abort that fails writes nothing; the next sweep
     * finds the transaction again. Just before the abort the partition is asked again whether the
     * transaction is still open as found; and a commit marker that reaches it after that makes the abort
     * fail (the abort carries the epoch the transaction's records had; transaction version 2 bumps it at
     * the marker), so nothing is written twice.
     */
    private void recoverHanging(Map<TopicPartition, PartitionOffsets> partitions) {
        OwnOpen report = ownOpen.getAndSet(null);
        long graceEnd = report.atNanos() - markerGraceNanos;
        boolean lost = false;
        for (HangingTransactions.Open o : report.found()) {
            long first = o.firstOffset();
            if (first < 0 || o.partition().topic().equals(HangingTransactions.OFFSETS_TOPIC)
                    || !(o.verdict() == HangingTransactions.Verdict.HANGING
                    || o.unknownToCoordinator() && written.hangs(o.partition(), first, graceEnd))) {
                continue;
            }
            if (!abort(o)) {
                continue;
            }
            lost = true;
            WrittenRecords.Span span = written.take(o.partition(), first);
            if (!span.records().isEmpty()) {
                long bytes = bytes(span.records());
                stagedBytes.addAndGet(bytes);
                ready.add(0, new Unit(null, -1, span.records(), bytes, null));
                rewritten.addAndGet(span.records().size());
            }
            if (span.complete()) {
                log.warn("kafka bus {}: its transaction on {} from offset {} was left open by a lost marker; aborted, "
                        + "and the {} records committed transactions had written into it are written again",
                        config.clientId(), o.partition(), first, span.records().size());
            } else {
                log.error("kafka bus {}: its transaction on {} from offset {} was left open by a lost marker; aborted, "
                        + "and {} records written again, but it began before what this instance keeps (the "
                        + "transactions it committed in the last {} s, at most {} bytes): the events of some turns may "
                        + "be lost", config.clientId(), o.partition(), first, span.records().size(),
                        WrittenRecords.MAX_AGE_NANOS / 1_000_000_000L, WrittenRecords.MAX_BYTES);
            }
        }
        // the group's offsets went into the same transactions: their marker is lost too, so the group's
        // committed offsets stay behind what the bus committed; aborted there as well, and committed again
        for (HangingTransactions.Open o : report.found()) {
            if (o.partition().topic().equals(HangingTransactions.OFFSETS_TOPIC) && o.firstOffset() >= 0
                    && (o.verdict() == HangingTransactions.Verdict.HANGING || lost && o.unknownToCoordinator())
                    && abort(o)) {
                lost = true;
                log.warn("kafka bus {}: its offsets on {} from offset {} were left open by a lost marker; aborted, and "
                        + "the offsets of its partitions are committed again", config.clientId(), o.partition(), o.firstOffset());
            }
        }
        if (lost) {
            partitions.values().forEach(PartitionOffsets::uncommitted);
        }
    }

    /**
     * Aborts a transaction judged hanging if it is still open as found (a marker written since the sweep
     * ended it: then nothing is aborted or written again); false when not aborted (a failure is logged).
     */
    private boolean abort(HangingTransactions.Open o) {
        try {
            if (!sweeper.stillOpen(o)) {
                return false;
            }
            sweeper.abort(o);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            log.warn("kafka bus {}: could not abort this producer's hanging transaction on {} from offset {} "
                    + "(the next sweep finds it again): {}", config.clientId(), o.partition(), o.firstOffset(),
                    e.getCause() != null ? e.getCause().toString() : e.toString());
            return false;
        }
    }

    @Override
    public void flush(Consumer<String, byte[]> consumer, Map<TopicPartition, PartitionOffsets> partitions,
                      Collection<PartitionOffsets> which) {
        for (int attempt = 0; attempt < 3; attempt++) {
            tick(consumer, partitions, false);
            if (commit(consumer, partitions, which)) {
                return;
            }
        }
    }

    /** One transaction of what is ready; true when it committed (or there was nothing to commit). */
    private boolean commit(Consumer<String, byte[]> consumer, Map<TopicPartition, PartitionOffsets> partitions,
                           Collection<PartitionOffsets> which) {
        lastTxNanos = System.nanoTime();
        if (committing != null) {
            return finishCommit(partitions);
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (PartitionOffsets po : which) {
            OffsetAndMetadata om = po.toCommit(MAX_METADATA_CHARS);
            if (om == null && hasReady(po)) {
                om = po.toCommit(MAX_METADATA_CHARS, true);
            }
            if (om != null) {
                offsets.put(po.partition, om);
            }
        }
        List<Unit> batch = new ArrayList<>();
        for (Unit u : ready) {
            if (u.offsets == null) {
                batch.add(u);
            } else {
                OffsetAndMetadata om = offsets.get(u.offsets.partition);
                if (om != null && PartitionOffsets.covers(om, u.offset)) {
                    batch.add(u);
                }
            }
        }
        if (batch.isEmpty() && offsets.isEmpty()) {
            return true;
        }
        boolean keep = sweeper != null; // what committed is kept only to write again what a lost marker left
        List<ProducerRecord<String, byte[]>> sentRecords = keep ? new ArrayList<>() : List.of();
        List<Future<RecordMetadata>> sent = keep ? new ArrayList<>() : List.of();
        long sentBytes = 0;
        try {
            if (producer == null) {
                producer = Producers.transactional(config);
            }
            producer.beginTransaction();
            for (Unit unit : batch) {
                for (ProducerRecord<String, byte[]> r : unit.records) {
                    Future<RecordMetadata> f = producer.send(r);
                    if (keep) {
                        sentRecords.add(r);
                        sent.add(f);
                    }
                }
                sentBytes += unit.bytes;
            }
            if (!offsets.isEmpty()) {
                producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
            }
        } catch (RuntimeException e) {
            failed(e, batch.size());
            return false;
        }
        committing = new Committing(batch, offsets, sentRecords, sent, sentBytes);
        return finishCommit(partitions);
    }

    /**
     * Commits {@link #committing}. A commit that timed out is kept and asked again on the next attempt
     * (Kafka allows only that, or closing the producer): the broker may have made it meanwhile, so sending
     * its units in a new transaction could write them twice.
     */
    private boolean finishCommit(Map<TopicPartition, PartitionOffsets> partitions) {
        Committing c = committing;
        try {
            producer.commitTransaction();
        } catch (TimeoutException | InterruptException e) {
            log.warn("kafka bus {}: commit of a transaction of {} units not confirmed (asked again in {} ms): {}",
                    config.clientId(), c.batch.size(), backOff(), e.toString());
            return false;
        } catch (RuntimeException e) {
            committing = null; // refused (aborted, fenced): as any failed transaction, its units are sent again
            failed(e, c.batch.size());
            return false;
        }
        committing = null;
        written.committed(c.records, c.sent, c.bytes, System.nanoTime());
        committed(c.batch, c.offsets, partitions);
        return true;
    }

    /** One more failure in a row: the next transaction waits longer (returns the wait in ms). */
    private long backOff() {
        failures++;
        long backoffMs = Math.min(5_000, 50L << Math.min(failures, 6));
        backoffUntilNanos = System.nanoTime() + backoffMs * 1_000_000;
        return backoffMs;
    }

    /** A transaction committed: its offsets are the partitions' committed ones, and its units succeed. */
    private void committed(List<Unit> batch, Map<TopicPartition, OffsetAndMetadata> offsets,
                           Map<TopicPartition, PartitionOffsets> partitions) {
        failures = 0;
        offsets.forEach((tp, om) -> {
            PartitionOffsets po = partitions.get(tp);
            if (po != null) {
                po.committed(om);
            }
        });
        Set<Unit> inBatch = Collections.newSetFromMap(new IdentityHashMap<>(batch.size() * 2));
        inBatch.addAll(batch);
        // a unit no longer ready was failed meanwhile (its partition moved while the commit was asked again)
        List<Unit> done = new ArrayList<>(batch.size());
        ready.removeIf(u -> inBatch.remove(u) && done.add(u));
        for (Unit unit : done) { // after the removal: a committed turn may make the poll loop add to ready
            stagedBytes.addAndGet(-unit.bytes);
            if (unit.ledgerRecord != null) {
                turnCommitted.accept(unit.message, unit.ledgerRecord);
            }
            unit.succeed();
        }
    }

    private void failed(RuntimeException e, int units) {
        log.warn("kafka bus {}: transaction of {} units failed (retried in {} ms): {}",
                config.clientId(), units, backOff(), e.toString());
        if (producer == null) {
            return;
        }
        try {
            producer.abortTransaction();
        } catch (RuntimeException abortFailed) {
            // fenced or in a fatal state: the next attempt makes a new producer (initTransactions fences the old epoch)
            producer.close(java.time.Duration.ZERO);
            producer = null;
        }
    }

    private boolean hasReady(PartitionOffsets po) {
        for (Unit u : ready) {
            if (u.offsets == po) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void dropped(Collection<PartitionOffsets> gone) {
        for (Iterator<Unit> it = ready.iterator(); it.hasNext(); ) {
            Unit u = it.next();
            if (u.offsets != null && gone.contains(u.offsets)) {
                it.remove();
                stagedBytes.addAndGet(-u.bytes);
                u.fail(new IllegalStateException("partition " + u.offsets.partition + " moved before its transaction committed"));
            }
        }
        running.moved(m -> gone.contains(m.offsets));
    }

    @Override
    public void fenced(int partition) {
        running.moved(m -> m.offsets.partition.partition() == partition);
    }

    @Override
    public void close() {
        Unit u;
        while ((u = incoming.poll()) != null) {
            ready.add(u);
        }
        for (Unit r : ready) {
            stagedBytes.addAndGet(-r.bytes);
            r.fail(new IllegalStateException("bus closed before the transaction committed"));
        }
        ready.clear();
        if (producer != null) {
            producer.close(java.time.Duration.ofSeconds(10));
        }
    }

    private boolean reserve(long bytes) {
        if (stagedBytes.addAndGet(bytes) > MAX_STAGED_BYTES) {
            stagedBytes.addAndGet(-bytes);
            return false;
        }
        return true;
    }

    private static long bytes(List<ProducerRecord<String, byte[]>> records) {
        long n = 0;
        for (ProducerRecord<String, byte[]> r : records) {
            n += (r.value() == null ? 0 : r.value().length) + (r.key() == null ? 0 : r.key().length()) + 64;
        }
        return n;
    }

    /** The open transactions of this bus's producer one sweep found, and when. */
    private record OwnOpen(List<HangingTransactions.Open> found, long atNanos) {
    }

    /** A transaction's units and offsets, between the start of its commit and the broker's answer. */
    private record Committing(List<Unit> batch, Map<TopicPartition, OffsetAndMetadata> offsets,
                              List<ProducerRecord<String, byte[]>> records,
                              List<Future<RecordMetadata>> sent,
                              long bytes) {
    }

    /** Records to write together, with the offset they complete (null for output of no record). */
    private static final class Unit {
        final PartitionOffsets offsets;
        final long offset;
        final List<ProducerRecord<String, byte[]>> records;
        final long bytes;
        final MonoSink<Void> sink;
        final KafkaMessage message;
        final ProducerRecord<String, byte[]> ledgerRecord;

        Unit(PartitionOffsets offsets, long offset, List<ProducerRecord<String, byte[]>> records, long bytes,
             MonoSink<Void> sink) {
            this(offsets, offset, records, bytes, sink, null, null);
        }

        Unit(PartitionOffsets offsets, long offset, List<ProducerRecord<String, byte[]>> records, long bytes,
             MonoSink<Void> sink, KafkaMessage message, ProducerRecord<String, byte[]> ledgerRecord) {
            this.message = message;
            this.ledgerRecord = ledgerRecord;
            this.offsets = offsets;
            this.offset = offset;
            this.records = records;
            this.bytes = bytes;
            this.sink = sink;
        }

        void succeed() {
            if (sink != null) {
                sink.success();
            }
        }

        void fail(Throwable e) {
            if (sink != null) {
                sink.error(e);
            }
        }
    }
}
