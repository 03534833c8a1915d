package dev.toolbus.bus.kafka;

import dev.toolbus.spi.BusMessage;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.ToolBus;
import dev.toolbus.spi.TurnLedger;
import dev.toolbus.spi.TurnState;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A {@link ToolBus} on Kafka, written on kafka-clients alone.
 *
 * <p>Turns are records of the calls topic (key {@code stream_id}, value the event JSON); the events
 * of a turn go to the results topic with the same key, so a conversation's events stay on one
 * partition and in order. One poll thread ({@code PollLoop}) owns the consumer and hands records over
 * only as the executor requests them, pausing the partitions when too many wait. Offsets are
 * committed per partition at the first record not complete, with the completed records above it in
 * the commit's metadata, so a record's completion never waits for a slower one and the partition's
 * next owner skips what was done. By default ({@link KafkaDelivery#EXACTLY_ONCE}) a turn's events
 * and its record's offset are written in one transaction; {@link KafkaDelivery#AT_LEAST_ONCE} writes
 * the events, then commits. Poison records go to the dead-letter topic with the reason and their
 * origin in headers.
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
    /** Dead-letter header of a poison record: how many owners took it without completing it. */
    public static final String HEADER_DELIVERIES = "toolbus.deliveries";

    private final KafkaBusConfig config;
    private final EventCodec codec;
    private final Mono<Void> topicsReady;
    /** Where the turn state's writes complete (off the producer's I/O thread). */
    private final Scheduler completions = Schedulers.boundedElastic();
    private final Settlement settlement;
    private final DeadLetters deadLetters;
    private final PollLoop loop;
    /** The turn state in the state topic, or null (kept in the executor). */
    private final KafkaTurnState state;
    /** Exactly once: aborts hanging transactions on the output topics; null when off. */
    private final HangingTransactions hanging;
    private final Principal principal;
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile Mono<Void> closed;

    private KafkaBus(Builder b) {
        this.config = b.config;
        this.codec = b.codec;
        this.deadLetters = new DeadLetters(config);
        this.principal = Principal.bus(config.principal());
        LedgerTopic ledger = config.turnLedgerEnabled() ? new LedgerTopic(config, Clock.systemUTC()) : null;
        this.settlement = config.delivery() == KafkaDelivery.EXACTLY_ONCE
                ? new TransactionalSettlement(config, ledger)
                : new AtLeastOnceSettlement(config);
        PollLoop[] poll = new PollLoop[1];
        this.state = config.turnState() ? new KafkaTurnState(config, codec,
                settlement instanceof StateTransactions tx ? tx : null, p -> poll[0].fenced(p), System::currentTimeMillis,
                completions) : null;
        this.loop = poll[0] = new PollLoop(config, settlement, deadLetters, codec, ledger, state);
        this.hanging = config.delivery() == KafkaDelivery.EXACTLY_ONCE && !config.hangingTransactionSweep().isZero()
                ? new HangingTransactions(config) : null;
        if (hanging != null && settlement instanceof TransactionalSettlement tx) {
            tx.watch(hanging); // its own producer's open transactions: aborted and their committed records written again
        }
        this.topicsReady = Mono.<Void>fromRunnable(() -> {
                    if (config.createTopics() || config.turnState()) {
                        TopicSetup.Topics topics = TopicSetup.prepare(config);
                        if (!topics.ledgerUsable() && ledger != null) {
                            ledger.disable();
                        }
                        if (state != null) {
                            state.partitions(topics.partitions());
                        }
                    }
                    if (hanging != null && !closing.get()) {
                        hanging.start(); // its own daemon thread; closed with the bus
                    }
                })
                .subscribeOn(Schedulers.boundedElastic())
                .cache(v -> Duration.ofDays(3650), e -> Duration.ZERO, () -> Duration.ofDays(3650));
        if (b.meterRegistry != null) {
            KafkaMeters.register(b.meterRegistry, config, loop, hanging,
                    settlement instanceof TransactionalSettlement tx ? tx.rewritten : null);
            if (state != null) {
                state.bind(b.meterRegistry);
            }
        }
    }

    /** A bus on the brokers of this URI ({@code kafka://host:port[,host:port]}) with the default settings. */
    public static KafkaBus fromUri(String uri) {
        return fromUri(uri, KafkaBusConfig.defaults());
    }

    /**
     * A bus on the brokers of this URI with these settings (their bootstrap servers are replaced by the
     * URI's). The query may set the delivery: {@code kafka://host:9092?delivery=at-least-once} (or
     * {@code exactly-once}); any other query parameter is an error.
     */
    public static KafkaBus fromUri(String uri, KafkaBusConfig config) {
        return builder().config(config).uri(uri).build();
    }

    /** {@code config} with the URI's bootstrap servers and delivery (see {@link #fromUri(String, KafkaBusConfig)}). */
    static KafkaBusConfig withUri(KafkaBusConfig config, String uri) {
        KafkaBusConfig.Builder b = config.toBuilder();
        int q = uri.indexOf('?');
        if (q >= 0) {
            for (String param : uri.substring(q + 1).split("&")) {
                if (param.isEmpty()) {
                    continue;
                }
                String[] kv = param.split("=", 2);
                String value = kv.length == 2 ? kv[1].toLowerCase(java.util.Locale.ROOT) : "";
                if (!kv[0].equals("delivery") || !(value.equals("at-least-once") || value.equals("exactly-once"))) {
                    throw new IllegalArgumentException("unsupported Kafka URI parameter '" + param
                            + "' (supported: delivery=exactly-once|at-least-once)");
                }
                b.delivery(value.equals("at-least-once") ? KafkaDelivery.AT_LEAST_ONCE : KafkaDelivery.EXACTLY_ONCE);
            }
            uri = uri.substring(0, q);
        }
        return b.bootstrapServers(uri).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public KafkaBusConfig config() {
        return config;
    }

    /**
     * Creates the calls, results, dead-letter, ledger and state topics if missing (when configured to),
     * and checks that the state topic fits the calls topic. Exactly once, it also starts the sweeps for
     * hanging transactions ({@link KafkaBusConfig#hangingTransactionSweep()}).
     */
    public Mono<Void> start() {
        return topicsReady;
    }

    /** Records behind the end of the assigned partitions, as last seen by the poll thread; -1 before. */
    public long lag() {
        return loop.lag.get();
    }

    /** Records handed to the executor and not yet completed. */
    public int inflight() {
        return loop.inflight.get();
    }

    /**
     * The turn state in the state topic ({@link KafkaBusConfig#turnState()}): the call journal,
     * approval requests and questions, session grants and cut results of the streams whose partitions
     * this instance owns, restored when it is assigned them. Its ledger: exactly once
     * {@link TurnLedger#none()}, the bus deduplicates turns itself (its ledger topic, or none when
     * {@code turnLedgerWindow} is zero); at least once {@code null}, the executor's in-memory ledger
     * (repeats on one instance are replayed or joined; a partition's next owner does not know them).
     * Without the state topic ({@code turnState(false)}) only that ledger, the rest in the executor.
     */
    @Override
    public TurnState turnState() {
        if (state != null) {
            return state;
        }
        return config.delivery() == KafkaDelivery.EXACTLY_ONCE ? TurnState.builder().ledger(TurnLedger.none()).build()
                : null;
    }

    /** {@code Principal.bus(principal)} of the config: who sends every turn and answer read from this bus. */
    @Override
    public Principal principal() {
        return principal;
    }

    @Override
    public Flux<BusMessage> receive() {
        return start().thenMany(loop.flux());
    }

    @Override
    public Mono<Void> publish(List<OutboundEvent> events) {
        if (events.isEmpty()) {
            return Mono.empty();
        }
        String key = events.get(0).streamId();
        String topic = key == null ? config.deadLetterTopic() : config.resultsTopic();
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>(events.size());
        String turnId = null;
        for (OutboundEvent e : events) {
            if (!Objects.equals(key, e.streamId())) {
                return Mono.error(new IllegalArgumentException("one publish carries the events of one stream; got "
                        + key + " and " + e.streamId()));
            }
            if (e instanceof TurnCompletedEvent tc) {
                turnId = tc.turnId();
            }
            records.add(ResultRecords.of(topic, key, e, codec));
        }
        return topicsReady.then(settlement.publish(key, turnId, turnId != null, records));
    }

    /** Sends the event to the dead-letter topic (it names no conversation). */
    @Override
    public Mono<Void> publishUnrouted(OutboundEvent event) {
        byte[] value = codec.encodeToBytes(event);
        return topicsReady.then(settlement.publish(null, null, false,
                List.of(deadLetters.record(null, value, "unrouted " + event.type() + " event", null))));
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
                if (hanging != null) {
                    hanging.close();
                }
                if (loop.started) {
                    loop.stop();
                    try {
                        loop.done.get(config.shutdownTimeout().toMillis() + config.revokeTimeout().toMillis() + 10_000,
                                TimeUnit.MILLISECONDS);
                    } catch (Exception e) {
                        log.warn("kafka bus {}: poll thread did not finish: {}", config.clientId(), e.toString());
                    }
                } else {
                    settlement.close();
                }
                if (state != null) {
                    state.close();
                }
                log.info("kafka bus {} closed", config.clientId());
            }).subscribeOn(Schedulers.boundedElastic()).cache();
        }
        return closed;
    }

    /** Builder of {@link KafkaBus}. */
    public static final class Builder {
        private KafkaBusConfig config = KafkaBusConfig.defaults();
        private MeterRegistry meterRegistry;
        private EventCodec codec = EventCodec.defaults();
        private String uri;

        private Builder() {
        }

        /**
         * The brokers as a URI ({@code kafka://host:port[,host:port][?delivery=at-least-once|exactly-once]}),
         * applied over {@link #config}'s bootstrap servers and delivery when the bus is built.
         */
        public Builder uri(String uri) {
            this.uri = Objects.requireNonNull(uri, "uri");
            return this;
        }

        public Builder config(KafkaBusConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * Where the gauges {@code toolbus.bus.lag}, {@code .pending}, {@code .inflight} and {@code .buffered}
         * go, and exactly once the counter {@code toolbus.bus.hanging_transactions_aborted}.
         */
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
            if (uri != null) {
                config = withUri(config, uri);
            }
            return new KafkaBus(this);
        }
    }
}
