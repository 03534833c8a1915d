package dev.toolbus.bus.redis;

import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.spi.BusMessage;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.ToolBus;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.spi.TurnLedger;
import dev.toolbus.spi.TurnState;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.Consumer;
import io.lettuce.core.RedisBusyException;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A {@link ToolBus} on Redis Streams.
 *
 * <p>Turns arrive on one stream ({@code toolbus:calls} by default, the JSON in the field
 * {@code event}) and are read through a consumer group created at the stream's beginning, so turns
 * published before any instance ran are executed. The blocking {@code XREADGROUP} runs on a
 * connection of its own and never asks for more entries than the executor requested. The events of a
 * turn are appended to the conversation's results stream ({@code toolbus:results:{stream_id}},
 * trimmed with {@code MAXLEN ~}) by one Lua script that also writes the turn's finished-turn marker,
 * so the two are atomic, over the turn's running-turn claim (one key per turn); the entry is acknowledged
 * ({@code XACK}, batched) only after that. The round trips a turn costs are batched where they can
 * be: one record check per read batch, admissions and acknowledgements sent together while one is on
 * the wire.
 *
 * <p>Recovery: a claim loop takes over entries that another consumer left pending longer than
 * {@link RedisStreamsConfig#claimMinIdle()} ({@code XAUTOCLAIM}), and renews the lease of the entries
 * this instance is still running so that a live instance's slow turns are not taken from it. Entries
 * delivered again (taken over, or left pending by an earlier run under the same consumer name) are
 * checked against the finished-turn markers first: a turn whose events were already written is
 * acknowledged without being run again. Entries larger than {@link RedisStreamsConfig#maxEventBytes()}
 * or without an {@code event} field go to the dead-letter stream with a reason, and an {@code error}
 * event goes to their conversation when its {@code stream_id} can be read.
 *
 * <p>Ordering: entries are handed over in stream order, so turns of one conversation run in order
 * within one instance. A consumer group has no key affinity: with several instances, two turns of one
 * conversation may run at once on different instances.
 *
 * <pre>{@code
 * try (ToolBus bus = RedisStreamsBus.fromUri("redis://127.0.0.1:6379")) {
 *     executor.run(bus).block();
 * }
 * }</pre>
 */
public final class RedisStreamsBus implements ToolBus {

    private static final Logger log = LoggerFactory.getLogger(RedisStreamsBus.class);
    static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);
    static final String EVENT_FIELD = "event";

    private final RedisStreamsConfig config;
    private final RedisClient client;
    private final boolean ownsClient;
    private final EventCodec codec;
    private final StatefulRedisConnection<String, byte[]> commandConnection;
    private final StatefulRedisConnection<String, byte[]> readConnection;
    private final RedisAsyncCommands<String, byte[]> commands;
    private final Consumer<String> me;
    private final Scheduler scheduler;
    private final ResultWriter writer;
    private final WriteRetry writeRetry;
    private final DoneMarkerCheck doneMarkers;
    private final StreamReader reader;
    /** Tells the reader when its connection drops (the client may be shared: removed on close). */
    private final RedisConnectionStateListener readCuts;
    private final RedisTurnLedger ledger;
    private final RedisTurnState state;
    private final ControlRelay relay;
    private final AtomicBoolean closing = new AtomicBoolean();
    private final AtomicBoolean released = new AtomicBoolean();
    private final AtomicLong pending = new AtomicLong(-1);
    private final AtomicLong lag = new AtomicLong(-1);
    private volatile Mono<Void> groupReady;
    private volatile Mono<Void> closed;

    private RedisStreamsBus(Builder b) {
        this.config = b.config != null ? b.config : RedisStreamsConfig.defaults();
        this.codec = b.codec;
        if (b.client != null) {
            this.client = b.client;
            this.ownsClient = false;
        } else {
            this.client = RedisClient.create(RedisURI.create(b.uri));
            this.client.setOptions(ClientOptions.builder()
                    .autoReconnect(true)
                    .socketOptions(SocketOptions.builder().keepAlive(true).connectTimeout(Duration.ofSeconds(5)).build())
                    .build());
            this.ownsClient = true;
        }
        try {
            this.commandConnection = client.connect(CODEC);
            this.readConnection = client.connect(CODEC);
        } catch (RuntimeException e) {
            if (ownsClient) {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
            }
            throw e;
        }
        this.commands = commandConnection.async();
        this.me = Consumer.from(config.group(), config.consumer());
        this.scheduler = Schedulers.newSingle("toolbus-redis-" + config.consumer(), true);
        this.writeRetry = new WriteRetry(() -> !released.get(), config.consumer());
        this.writer = new ResultWriter(commands, config);
        this.doneMarkers = new DoneMarkerCheck(commands);
        this.ledger = config.doneMarkersEnabled() ? new RedisTurnLedger(commands, config, scheduler) : null;
        this.relay = config.instanceId() != null ? new ControlRelay(client, commands, config) : null;
        try {
            this.state = new RedisTurnState(client, commands, codec, config.keyNamespace() + "state:",
                    config.turnState(), b.epochMillis, ledger != null ? ledger : TurnLedger.none());
        } catch (RuntimeException e) {
            if (relay != null) {
                relay.close();
            }
            commandConnection.close();
            readConnection.close();
            if (ownsClient) {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
            }
            throw e;
        }
        this.reader = new StreamReader(this, readConnection.async(), commands, scheduler, relay);
        this.readCuts = new RedisConnectionStateListener() {
            @Override
            public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
                if (connection == readConnection) {
                    reader.readConnectionLost();
                }
            }
        };
        client.addListener(readCuts);
        this.groupReady = createGroup().cache();
        if (b.meterRegistry != null) {
            registerMeters(b.meterRegistry);
            state.bind(b.meterRegistry);
        }
    }

    /** A bus on the Redis at this URI ({@code redis://host:port}) with the default settings. */
    public static RedisStreamsBus fromUri(String uri) {
        return builder().uri(uri).build();
    }

    /** A bus on the Redis at this URI ({@code redis://host:port}). */
    public static RedisStreamsBus fromUri(String uri, RedisStreamsConfig config) {
        return builder().uri(uri).config(config).build();
    }

    /** Starts a builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** The settings in force. */
    public RedisStreamsConfig config() {
        return config;
    }

    /**
     * Creates the consumer group at the stream's beginning ({@code XGROUP CREATE ... 0 MKSTREAM}) if it
     * does not exist. {@link #receive()} does this itself; call it to make the group exist before any
     * turn is published.
     */
    public Mono<Void> start() {
        return groupReady;
    }

    @Override
    public Flux<BusMessage> receive() {
        return start().thenMany(reader.flux());
    }

    @Override
    public Mono<Void> publish(List<OutboundEvent> events) {
        if (events.isEmpty()) {
            return Mono.empty();
        }
        String streamId = events.get(0).streamId();
        if (streamId == null) {
            return Flux.fromIterable(events).concatMap(this::publishUnrouted).then();
        }
        List<byte[]> encoded = new ArrayList<>(events.size());
        String doneTurn = null;
        for (OutboundEvent e : events) {
            if (!streamId.equals(e.streamId())) {
                return Mono.error(new IllegalArgumentException("one publish carries the events of one stream; got "
                        + streamId + " and " + e.streamId()));
            }
            encoded.add(codec.encodeToBytes(e));
            if (e instanceof TurnCompletedEvent t) {
                doneTurn = t.turnId();
            }
        }
        boolean recorded = doneTurn != null && config.doneMarkersEnabled();
        // the key the turn was admitted with has its hash already: the turn's key is named from it
        TurnKey held = recorded && ledger != null ? ledger.held(streamId, doneTurn) : null;
        String marker = !recorded ? null
                : held != null ? config.doneMarkerKey(held) : config.doneMarkerKey(streamId, doneTurn);
        String results = config.resultsKey(streamId);
        Mono<Void> write = writer.write(results, marker, encoded);
        if (held == null) {
            return marker == null ? write : writeRetry.apply(write, results);
        }
        // the script that records the turn writes the record over its running-turn claim
        return writeRetry.apply(write, results).doOnSuccess(v -> ledger.releasedWithRecord(held));
    }

    /** Appends the event to the dead-letter stream, marked {@code reason=unrouted}. */
    @Override
    public Mono<Void> publishUnrouted(OutboundEvent event) {
        byte[] json = codec.encodeToBytes(event);
        return writer.deadLetter(json, "unrouted " + event.type() + " event", null, config.consumer());
    }

    /**
     * Whether the turn's events were written (its key holds its finished-turn record, not a running
     * turn's claim). The bus consults this itself for every entry delivered a second time; it is public
     * for clients and tests.
     */
    public Mono<Boolean> isTurnDone(String streamId, String turnId) {
        if (!config.doneMarkersEnabled()) {
            return Mono.just(false);
        }
        return Mono.fromCompletionStage(() -> commands.get(config.doneMarkerKey(streamId, turnId)))
                .map(v -> !RedisTurnLedger.isClaim(v))
                .defaultIfEmpty(false);
    }

    /** Entries of the group delivered and not yet acknowledged (all consumers), as last refreshed; -1 before. */
    public long pendingEntries() {
        return pending.get();
    }

    /** Entries of the calls stream not yet delivered to the group, as last refreshed; -1 when unknown. */
    public long lag() {
        return lag.get();
    }

    /**
     * Stops taking new turns from the group (after the read in progress), for example to drain an
     * instance before maintenance: its running turns go on, control events shared by the other
     * instances still reach them, and the other instances take the new turns. {@link #resumeReading()}
     * undoes it.
     */
    public void pauseReading() {
        reader.pause(true);
    }

    /** Takes new turns from the group again after {@link #pauseReading()}. */
    public void resumeReading() {
        reader.pause(false);
    }

    /** Entries handed to the executor by this instance and not yet settled. */
    public int inflight() {
        return reader.inflight();
    }

    /**
     * Stops reading (the {@link #receive()} Flux completes once the read in progress returns), waits up
     * to {@link RedisStreamsConfig#shutdownTimeout()} for the delivered turns to be acknowledged while
     * still renewing their leases, then closes the connections (and the client, if this bus made it).
     * Entries not acknowledged by then stay pending and are taken over by another instance.
     */
    @Override
    public Mono<Void> closeGracefully() {
        if (closing.compareAndSet(false, true)) {
            closed = Mono.defer(() -> {
                reader.stop();
                return reader.awaitSettled(config.shutdownTimeout());
            }).then(Mono.fromRunnable(this::release).subscribeOn(Schedulers.boundedElastic()).then()).cache();
        }
        return closed;
    }

    private void release() {
        released.set(true);
        client.removeListener(readCuts);
        reader.dispose();
        scheduler.dispose();
        if (relay != null) {
            relay.close();
        }
        state.close();
        commandConnection.close();
        readConnection.close();
        if (ownsClient) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        log.info("redis bus {} closed", config.consumer());
    }

    boolean isClosing() {
        return closing.get();
    }

    RedisStreamsConfig cfg() {
        return config;
    }

    Consumer<String> consumer() {
        return me;
    }

    /**
     * The turn state this bus brings, every facet in this Redis and shared by the instances on it: the
     * ledger of idempotent turns (finished-turn records and running-turn claims; {@link TurnLedger#none()}
     * when {@code doneMarkerTtl} is zero), the call journal, approval requests and questions with their
     * answers, session grants and cut results (keys under {@code state:} beside the markers, bounded by
     * {@link RedisStreamsConfig#turnState()}).
     */
    @Override
    public TurnState turnState() {
        return state;
    }

    /** {@code bus:<principal>} of the config: who sends every turn and answer read from this bus. */
    @Override
    public Principal principal() {
        return config.principal();
    }

    /** The ledger of {@link #turnState()} (tests). */
    TurnLedger turnLedger() {
        return ledger != null ? ledger : TurnLedger.none();
    }

    /** Whether reading is paused and no read is in progress (tests). */
    boolean readingStopped() {
        return reader.readingStopped();
    }

    /** Renews the claims of the turns running here (the claim loop). */
    void renewTurnClaims() {
        if (ledger != null) {
            ledger.renew();
        }
    }

    ResultWriter writer() {
        return writer;
    }

    DoneMarkerCheck doneMarkers() {
        return doneMarkers;
    }

    /** The Redis ledger, or null when finished-turn records are off. */
    RedisTurnLedger redisLedger() {
        return ledger;
    }

    EventCodec codec() {
        return codec;
    }

    Mono<Void> createGroup() {
        return Mono.defer(() -> Mono.fromCompletionStage(commands.xgroupCreate(
                        io.lettuce.core.XReadArgs.StreamOffset.from(config.callsStream(), "0"), config.group(),
                        io.lettuce.core.XGroupCreateArgs.Builder.mkstream())))
                .doOnNext(ok -> log.info("created consumer group {} on {} at 0", config.group(), config.callsStream()))
                .onErrorResume(e -> e instanceof RedisBusyException || String.valueOf(e.getMessage()).startsWith("BUSYGROUP"),
                        e -> Mono.empty())
                .then();
    }

    void refreshGauges() {
        state.refreshGauges().subscribe(v -> { }, e -> log.debug("turn-state gauges not refreshed: {}", e.toString()));
        commands.xpending(config.callsStream(), config.group()).thenAccept(p -> pending.set(p.getCount()));
        commands.xinfoGroups(config.callsStream()).thenAccept(groups -> lag.set(lagOf(groups)))
                .exceptionally(e -> null);
    }

    private long lagOf(List<Object> groups) {
        for (Object g : groups) {
            if (g instanceof List<?> fields) {
                Object name = null;
                Object lagValue = null;
                for (int i = 0; i + 1 < fields.size(); i += 2) {
                    String key = text(fields.get(i));
                    if ("name".equals(key)) {
                        name = text(fields.get(i + 1));
                    } else if ("lag".equals(key)) {
                        lagValue = fields.get(i + 1);
                    }
                }
                if (config.group().equals(name)) {
                    return lagValue instanceof Number n ? n.longValue() : -1;
                }
            }
        }
        return -1;
    }

    private static String text(Object o) {
        if (o instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        return o == null ? null : o.toString();
    }

    private void registerMeters(MeterRegistry registry) {
        Tags tags = Tags.of("bus", "redis", "stream", config.callsStream(), "group", config.group());
        Gauge.builder("toolbus.bus.pending", pending, AtomicLong::get)
                .description("entries of the consumer group delivered and not yet acknowledged")
                .tags(tags).register(registry);
        Gauge.builder("toolbus.bus.lag", lag, AtomicLong::get)
                .description("entries of the calls stream not yet delivered to the group")
                .tags(tags).register(registry);
        Gauge.builder("toolbus.bus.inflight", reader, StreamReader::inflight)
                .description("entries handed to this instance's executor and not yet acknowledged")
                .tags(tags.and("consumer", config.consumer())).register(registry);
    }

    /** Builder of {@link RedisStreamsBus}. */
    public static final class Builder {
        private String uri;
        private RedisClient client;
        private RedisStreamsConfig config;
        private MeterRegistry meterRegistry;
        private EventCodec codec = EventCodec.defaults();
        private LongSupplier epochMillis = System::currentTimeMillis;

        private Builder() {
        }

        /**
         * The clock approval and question expiries are compared with in the turn state (the executor's:
         * the one that sets their {@code expires_at_ms}); the system clock by default.
         */
        public Builder epochMillis(LongSupplier clock) {
            this.epochMillis = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The Redis to connect to, {@code redis://host:port[/db]}; the bus owns the client it makes. */
        public Builder uri(String uri) {
            Objects.requireNonNull(uri, "uri");
            RedisURI.create(uri); // fail early on a malformed URI
            this.uri = uri;
            return this;
        }

        /** A client shared with others; the bus does not shut it down. */
        public Builder client(RedisClient client) {
            this.client = Objects.requireNonNull(client, "client");
            return this;
        }

        public Builder config(RedisStreamsConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /** Where the gauges {@code toolbus.bus.pending}, {@code .lag} and {@code .inflight} go. */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** How output events are encoded (default {@link EventCodec#defaults()}). */
        public Builder codec(EventCodec codec) {
            this.codec = Objects.requireNonNull(codec, "codec");
            return this;
        }

        /** Connects (two connections: commands, and blocking reads) and builds the bus. */
        public RedisStreamsBus build() {
            if ((uri == null) == (client == null)) {
                throw new IllegalStateException("give exactly one of uri(...) and client(...)");
            }
            return new RedisStreamsBus(this);
        }
    }
}
