package dev.toolbus.bus.kafka;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.AbortTransactionOptions;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeProducersOptions;
import org.apache.kafka.clients.admin.DescribeProducersResult.PartitionProducerState;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.DescribeTransactionsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly once: finds hanging transactions on the bus's output topics and aborts them, as
 * {@code kafka-transactions.sh find-hanging} and {@code abort} do by hand. A transaction hangs when a
 * partition leader holds it open while the coordinator does not have that producer id and epoch in an
 * open transaction with that partition: no marker will end it, so every {@code read_committed} reader
 * of the partition stops at its first record. Aborted are only transactions of this instance's
 * transactional id open longer than the minimum age, and those of producer ids no coordinator lists
 * open longer than {@link #UNLISTED_MIN_AGE}; other transactional ids are never touched. With a
 * listener ({@link #onOwnOpen}), the bus's own open transactions, young ones and those on its group's
 * partition of {@link #OFFSETS_TOPIC} included, go to it instead ({@link TransactionalSettlement}
 * aborts them and writes their committed records again). Sweeps run one at a time on a daemon thread
 * of their own; every Admin call has a timeout; a failed sweep is logged.
 */
final class HangingTransactions implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HangingTransactions.class);

    /** The least age of a transaction the bus aborts (the default is larger with a long transaction timeout). */
    static final Duration MIN_AGE = Duration.ofSeconds(30);
    /**
     * The least age of an open transaction whose producer id no coordinator lists: Kafka's default
     * {@code transaction.max.timeout.ms}. ListTransactions leaves out the ids the bus may not describe,
     * and no coordinator keeps any transaction open longer.
     */
    static final Duration UNLISTED_MIN_AGE = Duration.ofMinutes(15);
    /** Kafka's topic of group offsets: its partition of the bus's group is looked at for this bus's own transactions only. */
    static final String OFFSETS_TOPIC = Topic.GROUP_METADATA_TOPIC_NAME;
    /** Timeout of each Admin call. */
    static final int CALL_TIMEOUT_MS = 10_000;
    /** The first sweep runs this soon after the start at the latest. */
    static final long FIRST_SWEEP_MS = 5_000;

    /** What a sweep makes of an open transaction. */
    enum Verdict {
        /** Open for less than the minimum age. */
        YOUNG,
        /** The coordinator has it open with this partition: its marker will come. */
        LIVE,
        /** Another transactional id's: not this bus's to abort. */
        FOREIGN,
        /** No marker will end it: aborted. */
        HANGING
    }

    /**
     * A transaction open on a partition.
     *
     * @param ageMs how long since the producer's last write to the partition
     * @param coordinator what the coordinator says of its producer, for the log
     * @param own whether it is a transaction of this bus's transactional id
     * @param unknownToCoordinator whether the coordinator, asked whatever the age, has no open transaction of
     *                             that producer and epoch with this partition
     */
    record Open(TopicPartition partition, ProducerState producer, long ageMs, Verdict verdict, String coordinator,
                boolean own, boolean unknownToCoordinator) {

        /** The first offset of the transaction on its partition. */
        long firstOffset() {
            return producer.currentTransactionStartOffset().orElse(-1);
        }
    }

    private final KafkaBusConfig config;
    private final String ownId;
    private final long minAgeMs;
    private final Clock clock;
    /** Hanging transactions aborted. */
    final AtomicLong aborted = new AtomicLong();
    private final Object lock = new Object();
    private ScheduledExecutorService thread;
    private Admin admin;
    private boolean closed;
    /** Sweep thread: the failure logged last (the same one again is logged at debug). */
    private String lastFailure;
    /**
     * Takes the transactions of this bus's own producer open in a sweep, young ones included, instead
     * of the sweep aborting them (the settlement judges them by what it wrote, aborts with
     * {@link #abort(Open)} and writes their committed records again); null: the sweep aborts them.
     */
    private volatile Consumer<List<Open>> ownOpen;

    /** The bus's sweeper: minimum age {@link #minAge(KafkaBusConfig)}, the system clock. */
    HangingTransactions(KafkaBusConfig config) {
        this(config, minAge(config), Clock.systemUTC());
    }

    HangingTransactions(KafkaBusConfig config, Duration minAge, Clock clock) {
        this.config = config;
        this.ownId = Producers.transactionalId(config);
        this.minAgeMs = minAge.toMillis();
        this.clock = clock;
    }

    /** Twice the transaction timeout, at least {@link #MIN_AGE}: the coordinator ends its own transactions sooner. */
    static Duration minAge(KafkaBusConfig config) {
        return Duration.ofMillis(Math.max(MIN_AGE.toMillis(), 2 * Producers.transactionTimeoutMs(config)));
    }

    /** The topics the bus writes in its transactions. */
    static List<String> topics(KafkaBusConfig config) {
        Set<String> t = new LinkedHashSet<>(List.of(config.resultsTopic(), config.deadLetterTopic()));
        if (config.turnLedgerEnabled()) {
            t.add(config.turnLedgerTopic());
        }
        if (config.turnState()) {
            t.add(config.stateTopic());
        }
        return List.copyOf(t);
    }

    /**
     * Whether a transaction open on {@code partition} hangs, by what the coordinator says of its producer.
     *
     * @param transactionalId the id the coordinator lists for the producer id, null when none
     * @param description that id's description when it is this bus's, null when not described
     */
    static Verdict decide(TopicPartition partition, ProducerState producer, String transactionalId,
                          TransactionDescription description, long nowMs, long minAgeMs, String ownId) {
        long age = nowMs - producer.lastTimestamp();
        if (age < minAgeMs) {
            return Verdict.YOUNG;
        }
        if (transactionalId == null) {
            return age < Math.max(minAgeMs, UNLISTED_MIN_AGE.toMillis()) ? Verdict.YOUNG : Verdict.HANGING;
        }
        if (!transactionalId.equals(ownId)) {
            return Verdict.FOREIGN;
        }
        TransactionDescription d = description;
        if (d == null || d.producerId() != producer.producerId() || !d.topicPartitions().contains(partition)) {
            return Verdict.HANGING;
        }
        int ahead = d.producerEpoch() - producer.producerEpoch();
        return switch (d.state()) {
            case ONGOING -> ahead > 0 ? Verdict.HANGING : Verdict.LIVE;
            // transaction version 2 bumps the epoch as a transaction ends; its markers carry the new one
            case PREPARE_COMMIT, PREPARE_ABORT, PREPARE_EPOCH_FENCE -> ahead > 1 ? Verdict.HANGING : Verdict.LIVE;
            case UNKNOWN -> Verdict.LIVE; // a state this client does not know, with the partition: left alone
            default -> Verdict.HANGING; // complete or empty: the coordinator is done with it
        };
    }

    /** Hands this bus's own open transactions to {@code listener} (on the sweep thread) instead of aborting them. */
    void onOwnOpen(Consumer<List<Open>> listener) {
        this.ownOpen = listener;
    }

    /** Starts the sweeps on a daemon thread, the first within {@link #FIRST_SWEEP_MS}; no-op when started or closed. */
    void start() {
        long every = config.hangingTransactionSweep().toMillis();
        synchronized (lock) {
            if (closed || thread != null || every <= 0) {
                return;
            }
            thread = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "toolbus-kafka-txsweep-" + config.clientId());
                t.setDaemon(true);
                return t;
            });
            thread.scheduleWithFixedDelay(this::run, Math.min(every, FIRST_SWEEP_MS), every, TimeUnit.MILLISECONDS);
        }
    }

    private void run() {
        try {
            int n = sweep();
            lastFailure = null;
            log.debug("kafka bus {}: hanging transactions swept, {} aborted", config.clientId(), n);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // closing
        } catch (Exception e) {
            String what = e instanceof ExecutionException && e.getCause() != null ? e.getCause().toString() : e.toString();
            if (isClosed()) {
                return;
            }
            if (what.equals(lastFailure)) {
                log.debug("kafka bus {}: sweep for hanging transactions failed again: {}", config.clientId(), what);
            } else {
                log.warn("kafka bus {}: sweep for hanging transactions failed (tried again in {} ms): {}",
                        config.clientId(), config.hangingTransactionSweep().toMillis(), what);
            }
            lastFailure = what;
        } catch (Error e) {
            log.error("kafka bus {}: sweeps for hanging transactions stopped", config.clientId(), e);
            closeAdmin();
            throw e;
        }
    }

    /** One sweep: aborts what {@link #find()} calls hanging, and returns how many. One at a time. */
    synchronized int sweep() throws InterruptedException, ExecutionException, TimeoutException {
        int n = 0;
        Consumer<List<Open>> listener = ownOpen;
        List<Open> own = new ArrayList<>();
        for (Open o : find()) {
            if (listener != null && o.own()) {
                own.add(o);
                continue;
            }
            if (o.verdict() != Verdict.HANGING) {
                continue;
            }
            try {
                abort(o);
                n++;
            } catch (ExecutionException | TimeoutException e) {
                log.warn("kafka bus {}: could not abort the hanging transaction on {} (producer {} epoch {}, from offset {}): {}",
                        config.clientId(), o.partition(), o.producer().producerId(), o.producer().producerEpoch(),
                        o.producer().currentTransactionStartOffset().orElse(-1),
                        e.getCause() != null ? e.getCause().toString() : e.toString());
            }
        }
        if (!own.isEmpty()) {
            listener.accept(own);
        }
        return n;
    }

    /** The transactions open on the bus's output topics now, each with its verdict. */
    List<Open> find() throws InterruptedException, ExecutionException, TimeoutException {
        Admin a = admin();
        List<TopicPartition> partitions = partitions(a);
        if (partitions.isEmpty()) {
            return List.of();
        }
        Map<TopicPartition, PartitionProducerState> states = get(a.describeProducers(partitions,
                new DescribeProducersOptions().timeoutMs(CALL_TIMEOUT_MS)).all());
        long now = clock.millis();
        Set<Long> aged = new HashSet<>();
        states.forEach((tp, s) -> s.activeProducers().forEach(p -> {
            if (p.currentTransactionStartOffset().isPresent() && now - p.lastTimestamp() >= minAgeMs) {
                aged.add(p.producerId());
            }
        }));
        Map<Long, String> ids = new HashMap<>();
        TransactionDescription own = null;
        long ownProducer = -1;
        if (ownOpen != null) {
            own = describeOwn(a);
            if (own != null) {
                ownProducer = own.producerId();
                ids.put(ownProducer, ownId);
            }
        }
        if (!aged.isEmpty()) {
            for (TransactionListing l : get(a.listTransactions(new ListTransactionsOptions().filterProducerIds(aged)
                    .timeoutMs(CALL_TIMEOUT_MS)).all())) {
                ids.put(l.producerId(), l.transactionalId());
            }
            if (own == null && ids.containsValue(ownId)) {
                own = describeOwn(a);
            }
        }
        List<Open> out = new ArrayList<>();
        for (Map.Entry<TopicPartition, PartitionProducerState> e : states.entrySet()) {
            for (ProducerState p : e.getValue().activeProducers()) {
                if (p.currentTransactionStartOffset().isEmpty()) {
                    continue;
                }
                String id = ids.get(p.producerId());
                if (e.getKey().topic().equals(OFFSETS_TOPIC) && !(p.producerId() == ownProducer || ownId.equals(id))) {
                    continue; // other groups' and applications' offsets: never this bus's to judge
                }
                TransactionDescription d = ownId.equals(id) ? own : null;
                Verdict v = decide(e.getKey(), p, id, d, now, minAgeMs, ownId);
                boolean mine = p.producerId() == ownProducer || ownId.equals(id);
                boolean unknown = mine && decide(e.getKey(), p, id, d, now, 0, ownId) == Verdict.HANGING;
                out.add(new Open(e.getKey(), p, now - p.lastTimestamp(), v, coordinator(v, id, d), mine, unknown));
            }
        }
        return out;
    }

    /**
     * Whether the transaction is still open on its partition as found: same producer id and epoch, same
     * first offset (asked again now, so that a marker written since the sweep is seen).
     */
    boolean stillOpen(Open o) throws InterruptedException, ExecutionException, TimeoutException {
        PartitionProducerState now = get(admin().describeProducers(List.of(o.partition()),
                new DescribeProducersOptions().timeoutMs(CALL_TIMEOUT_MS)).partitionResult(o.partition()));
        for (ProducerState p : now.activeProducers()) {
            if (p.producerId() == o.producer().producerId() && p.producerEpoch() == o.producer().producerEpoch()
                    && p.currentTransactionStartOffset().equals(o.producer().currentTransactionStartOffset())) {
                return true;
            }
        }
        return false;
    }

    /** Aborts this transaction (writes an abort marker to its partition) and counts it. */
    void abort(Open o) throws InterruptedException, ExecutionException, TimeoutException {
        ProducerState p = o.producer();
        // no coordinator epoch yet (-1): 0 is at most any the partition can have seen
        int coordinatorEpoch = Math.max(0, p.coordinatorEpoch().orElse(0));
        get(admin().abortTransaction(new AbortTransactionSpec(o.partition(), p.producerId(), (short) p.producerEpoch(),
                coordinatorEpoch), new AbortTransactionOptions().timeoutMs(CALL_TIMEOUT_MS)).all());
        aborted.incrementAndGet();
        log.warn("kafka bus {}: aborted a hanging transaction on {}: producer {} epoch {}, open from offset {} for {} s; "
                        + "the coordinator: {}", config.clientId(), o.partition(), p.producerId(), p.producerEpoch(),
                p.currentTransactionStartOffset().orElse(-1), o.ageMs() / 1000, o.coordinator());
    }

    private List<TopicPartition> partitions(Admin a) throws InterruptedException, ExecutionException, TimeoutException {
        List<TopicPartition> out = new ArrayList<>();
        Map<String, KafkaFuture<TopicDescription>> byTopic = a.describeTopics(topics(config),
                new DescribeTopicsOptions().timeoutMs(CALL_TIMEOUT_MS)).topicNameValues();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> e : byTopic.entrySet()) {
            try {
                get(e.getValue()).partitions().forEach(p -> out.add(new TopicPartition(e.getKey(), p.partition())));
            } catch (ExecutionException missing) {
                if (!(missing.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw missing;
                }
            }
        }
        if (ownOpen != null) {
            TopicPartition offsets = offsetsPartition(a);
            if (offsets != null) {
                out.add(offsets);
            }
        }
        return out;
    }

    /**
     * The partition of {@link #OFFSETS_TOPIC} holding the bus's group's offsets (as the broker picks it:
     * the group id's hash modulo the partition count), or null when the topic cannot be described.
     */
    private TopicPartition offsetsPartition(Admin a) throws InterruptedException, TimeoutException {
        try {
            int n = get(a.describeTopics(List.of(OFFSETS_TOPIC), new DescribeTopicsOptions().timeoutMs(CALL_TIMEOUT_MS))
                    .topicNameValues().get(OFFSETS_TOPIC)).partitions().size();
            return n == 0 ? null : new TopicPartition(OFFSETS_TOPIC, Utils.abs(config.groupId().hashCode()) % n);
        } catch (ExecutionException e) {
            log.debug("kafka bus {}: {} not described: {}", config.clientId(), OFFSETS_TOPIC, e.getCause());
            return null;
        }
    }

    private TransactionDescription describeOwn(Admin a) throws InterruptedException, ExecutionException, TimeoutException {
        try {
            return get(a.describeTransactions(List.of(ownId), new DescribeTransactionsOptions().timeoutMs(CALL_TIMEOUT_MS))
                    .description(ownId));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TransactionalIdNotFoundException) {
                return null;
            }
            throw e;
        }
    }

    private static String coordinator(Verdict v, String id, TransactionDescription d) {
        if (v == Verdict.YOUNG) {
            return "not asked";
        }
        if (id == null) {
            return "no transactional id has this producer id";
        }
        if (d == null) {
            return id + (v == Verdict.FOREIGN ? " (not this bus's)" : " not found");
        }
        return id + " producer " + d.producerId() + " epoch " + d.producerEpoch() + " " + d.state()
                + " partitions " + d.topicPartitions();
    }

    private static <T> T get(KafkaFuture<T> f) throws InterruptedException, ExecutionException, TimeoutException {
        return f.get(CALL_TIMEOUT_MS + 1_000L, TimeUnit.MILLISECONDS);
    }

    private Admin admin() {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("the hanging-transaction sweep of " + config.clientId() + " is closed");
            }
            if (admin == null) {
                admin = Admin.create(properties(config));
            }
            return admin;
        }
    }

    static Properties properties(KafkaBusConfig config) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, config.clientId() + "-txsweep");
        p.putAll(config.adminProperties());
        return p;
    }

    private boolean isClosed() {
        synchronized (lock) {
            return closed;
        }
    }

    private void closeAdmin() {
        Admin a;
        synchronized (lock) {
            a = admin;
            admin = null;
        }
        if (a != null) {
            try {
                a.close(Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                log.debug("kafka bus {}: closing the sweep's admin client: {}", config.clientId(), e.toString());
            }
        }
    }

    /** Stops the sweeps (a running one is interrupted, waited for up to 5 s) and closes the admin client. */
    @Override
    public void close() {
        ScheduledExecutorService t;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            t = thread;
        }
        if (t != null) {
            t.shutdownNow();
            try {
                t.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        closeAdmin();
    }
}
