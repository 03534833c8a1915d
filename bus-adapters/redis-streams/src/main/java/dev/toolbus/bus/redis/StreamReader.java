package dev.toolbus.bus.redis;

import dev.toolbus.spi.BusMessage;
import dev.toolbus.spi.BusSource;
import dev.toolbus.spi.DrainLoop;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The read side of {@link RedisStreamsBus}: a demand-driven {@code XREADGROUP} loop on its own
 * connection (first this consumer's own pending entries, then new ones), handing entries to the
 * executor through the shared {@link DrainLoop}, so the receiver sees one thread at a time and never
 * more entries than it requested. Entries delivered before pass the {@link PoisonFilter} and the
 * {@link FinishedTurnFilter} first; the {@link ClaimLoop} takes over other consumers' idle entries and
 * renews the {@link Leases} of the entries handed over here, which a graceful shutdown waits for.
 */
final class StreamReader implements BusSource {

    private static final Logger log = LoggerFactory.getLogger(StreamReader.class);
    private static final long MAX_BACKOFF_MS = 5_000;
    private static final long MIN_BACKOFF_MS = 50;

    private final RedisStreamsBus bus;
    private final RedisStreamsConfig config;
    private final RedisAsyncCommands<String, byte[]> blocking;
    private final RedisAsyncCommands<String, byte[]> commands;
    private final Scheduler scheduler;
    private final AckBatcher acks;
    private final Leases leases = new Leases(System::nanoTime);
    private final PoisonFilter poison;
    private final FinishedTurnFilter finished;
    private final ClaimLoop claims;
    private final DrainLoop drain;

    /** Entries read (or taken over) and not yet handed over; at most a read batch plus a claim batch. */
    private final ConcurrentLinkedQueue<ReadEntry> ready = new ConcurrentLinkedQueue<>();
    /** Control entries the relay gave back to run here (handed over before {@link #ready}). */
    private final ConcurrentLinkedQueue<StreamMessage<String, byte[]>> routedHere = new ConcurrentLinkedQueue<>();
    /** Shares control events with the other instances; null when no instance id is configured. */
    private final ControlRelay relay;
    private volatile boolean reading;
    private volatile boolean waiting; // a retry after an error is scheduled
    private volatile boolean stopped;
    private volatile boolean paused;
    private volatile boolean history = true; // first this consumer's own pending entries, then new ones
    private volatile String historyCursor = "0-0";
    /** Disconnects of the read connection so far: a read sent before one may have lost its answer. */
    private final AtomicLong readCuts = new AtomicLong();
    /**
     * Ids a read returned after a reconnect, not handed over but read again from the pending list:
     * new to this consumer, so a finished turn among them is answered as a new entry is.
     */
    private final Set<String> unseen = ConcurrentHashMap.newKeySet();
    private long backoffMs = MIN_BACKOFF_MS;

    StreamReader(RedisStreamsBus bus, RedisAsyncCommands<String, byte[]> blocking,
                 RedisAsyncCommands<String, byte[]> commands, Scheduler scheduler, ControlRelay relay) {
        this.bus = bus;
        this.config = bus.cfg();
        this.blocking = blocking;
        this.commands = commands;
        this.scheduler = scheduler;
        this.relay = relay;
        this.acks = new AckBatcher(commands, config.callsStream(), config.group());
        this.poison = new PoisonFilter(bus, commands);
        this.finished = new FinishedTurnFilter(bus, acks);
        this.claims = new ClaimLoop(bus, commands, leases, this);
        this.drain = new DrainLoop("redis bus " + config.consumer(), this);
        if (relay != null) {
            relay.onReceived(drain::drain);
        }
    }

    /** The entries, as the executor requests them (one subscriber); subscribing starts the claim loop. */
    Flux<BusMessage> flux() {
        return drain.flux();
    }

    int inflight() {
        return leases.size();
    }

    /** Stops (true) or resumes taking new entries from the group; control events still arrive. */
    void pause(boolean on) {
        paused = on;
        drain.drain();
    }

    /** Paused, and no read in progress or about to be retried. */
    boolean readingStopped() {
        return paused && !reading && !waiting;
    }

    void stop() {
        stopped = true;
        drain.drain();
    }

    boolean isStopped() {
        return stopped;
    }

    /** Completes when every delivered entry is settled, or after the timeout. */
    Mono<Void> awaitSettled(Duration timeout) {
        return Flux.interval(Duration.ofMillis(20))
                .filter(t -> leases.isEmpty() && !reading)
                .next()
                .timeout(timeout, Mono.fromRunnable(() -> log.warn(
                        "redis bus {}: {} entries still unacknowledged after {}; another instance will take them over",
                        config.consumer(), leases.size(), timeout)))
                .then();
    }

    void dispose() {
        stopped = true;
        claims.stop();
        drain.drain();
    }

    // ---- the drain loop's source ----

    @Override
    public void started() {
        claims.start(scheduler);
        scheduler.schedule(bus::refreshGauges);
    }

    @Override
    public void cancelled() {
        stopped = true;
    }

    /**
     * Control events other instances shared, then control entries routed back here, then read entries
     * in stream order; entries that cannot be run are dead-lettered, control entries another instance
     * owns are passed on, on the way.
     */
    @Override
    public BusMessage poll() {
        if (relay != null) {
            BusMessage shared = stopped ? null : relay.poll();
            if (shared != null) {
                return shared;
            }
            StreamMessage<String, byte[]> m = routedHere.poll();
            if (m != null) {
                return handOver(m, m.getBody().get(RedisStreamsBus.EVENT_FIELD));
            }
        }
        ReadEntry r;
        while ((r = ready.poll()) != null) {
            BusMessage out = deliver(r);
            if (out != null) {
                return out;
            }
        }
        return null;
    }

    /** Stopped, and the read in progress has returned. */
    @Override
    public boolean finished() {
        return stopped && !reading;
    }

    @Override
    public void request(long demand) {
        if (!stopped && !paused && !reading && !waiting && ready.isEmpty()) {
            reading = true;
            read((int) Math.min(config.batchSize(), demand));
        }
    }

    /** Not handed over after all: unleased, so the claim loop (or a restart) delivers it again. */
    @Override
    public void release(BusMessage message, Throwable error) {
        if (message instanceof Entry e) {
            leases.release(e.id);
            unadmitted(e.early);
        }
    }

    /** The entry as a message, or null when the bus settles it itself (rejected, or routed to another instance). */
    private BusMessage deliver(ReadEntry r) {
        StreamMessage<String, byte[]> m = r.message;
        byte[] payload = r.payload();
        if (payload == null || payload.length > config.maxEventBytes()) {
            unadmitted(r.early);
            poison.reject(m, payload);
            return null;
        }
        if (relay != null && r.peek().isControl()) {
            // leased while the relay decides, so the claim loop leaves it alone
            leases.take(m.getId());
            relay.route(payload, r.peek()).whenComplete((here, error) -> {
                if (error != null || here) {
                    leases.release(m.getId());
                    routedHere.add(m);
                    drain.drain();
                } else {
                    acks.ack(m.getId()).subscribe(null,
                            e -> log.warn("redis bus {}: ack of routed control entry {} failed: {}", config.consumer(),
                                    m.getId(), e.toString()),
                            () -> leases.release(m.getId()));
                }
            });
            return null;
        }
        return handOver(m, payload, r.early);
    }

    private BusMessage handOver(StreamMessage<String, byte[]> m, byte[] payload) {
        return handOver(m, payload, null);
    }

    private BusMessage handOver(StreamMessage<String, byte[]> m, byte[] payload, RedisTurnLedger.Early early) {
        leases.take(m.getId());
        return new Entry(m.getId(), payload, early);
    }

    /** An entry whose read admitted its turn is settled: gives the claim back if no admission took it. */
    private void unadmitted(RedisTurnLedger.Early early) {
        RedisTurnLedger ledger = early == null ? null : bus.redisLedger();
        if (ledger != null) {
            ledger.unadmitted(early);
        }
    }

    // ---- reading ----

    /** The read connection was lost (Lettuce sends the commands in flight again once it is back). */
    void readConnectionLost() {
        readCuts.incrementAndGet();
    }

    private void read(int count) {
        CompletableFuture<List<StreamMessage<String, byte[]>>> f;
        boolean fromHistory = history;
        long cuts = readCuts.get();
        if (fromHistory) {
            f = blocking.xreadgroup(bus.consumer(), XReadArgs.Builder.count(count),
                    XReadArgs.StreamOffset.from(config.callsStream(), historyCursor)).toCompletableFuture();
        } else {
            f = blocking.xreadgroup(bus.consumer(), XReadArgs.Builder.count(count).block(config.blockTimeout()),
                    XReadArgs.StreamOffset.lastConsumed(config.callsStream())).toCompletableFuture();
        }
        f.whenComplete((messages, error) -> {
            if (error != null) {
                onReadError(error);
                return;
            }
            backoffMs = MIN_BACKOFF_MS;
            if (!fromHistory && readCuts.get() != cuts) {
                // This answer may be to the read sent again after a reconnect, while Redis had already
                // answered the first one into the cut connection: the entries of that lost answer sit in
                // this consumer's pending list. Read the pending list instead, in id order (these entries
                // are in it too), so no later turn of a stream runs before an earlier lost one.
                log.info("redis bus {}: the read connection was cut during a read; reading this consumer's pending "
                        + "entries before new ones", config.consumer());
                messages.forEach(m -> unseen.add(m.getId()));
                history = true;
                historyCursor = "0-0";
                readDone(List.of());
                return;
            }
            if (!fromHistory) {
                List<ReadEntry> read = ReadEntry.of(messages);
                // the check admits the turns too, on the read connection: idle until the next read
                finished.withoutFinished(read, id -> false, blocking)
                        .whenComplete((fresh, e2) -> readDone(fresh != null ? fresh : read));
                return;
            }
            if (messages.isEmpty()) {
                history = false;
                unseen.clear();
                readDone(List.of());
                return;
            }
            historyCursor = messages.get(messages.size() - 1).getId();
            log.info("redis bus {}: {} entries pending for this consumer (left by an earlier run, or by a cut read)",
                    config.consumer(), messages.size());
            redelivered(messages).whenComplete((fresh, e2) -> readDone(fresh != null ? fresh : List.of()));
        });
    }

    private void readDone(List<ReadEntry> fresh) {
        ready.addAll(fresh);
        reading = false;
        drain.drain();
    }

    private void onReadError(Throwable error) {
        String message = String.valueOf(error.getMessage());
        if (message.startsWith("NOGROUP")) {
            log.warn("redis bus {}: consumer group {} is gone (broker restarted without its data?); creating it again",
                    config.consumer(), config.group());
            bus.createGroup().subscribe(null, e -> log.warn("cannot create group: {}", e.toString()));
        } else if (!stopped) {
            log.warn("redis bus {}: read failed, retrying in {} ms: {}", config.consumer(), backoffMs, error.toString());
        }
        // a read whose answer was lost (connection cut) may have delivered entries to this consumer:
        // read this consumer's pending entries first, so they run before newer ones of their streams
        history = true;
        historyCursor = "0-0";
        long delay = backoffMs;
        backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
        waiting = true;
        reading = false;
        if (stopped) {
            waiting = false;
            drain.drain();
            return;
        }
        scheduler.schedule(() -> {
            waiting = false;
            drain.drain();
        }, delay, TimeUnit.MILLISECONDS);
    }

    // ---- entries delivered before ----

    /**
     * Of entries delivered before (taken over, or this consumer's leftovers), acknowledges those deleted
     * from the stream meanwhile, leaves out those still leased here, dead-letters poison ones, settles
     * those whose turn is finished, and returns the others, in order.
     */
    CompletableFuture<List<ReadEntry>> redelivered(List<StreamMessage<String, byte[]>> in) {
        List<StreamMessage<String, byte[]>> live = new ArrayList<>(in.size());
        List<String> gone = new ArrayList<>();
        for (StreamMessage<String, byte[]> m : in) {
            if (m.getBody() == null || m.getBody().isEmpty()) {
                gone.add(m.getId()); // deleted from the stream (trimmed) while pending
            } else if (!leases.holds(m.getId())) {
                live.add(m);
            }
        }
        if (!gone.isEmpty()) {
            commands.xack(config.callsStream(), config.group(), gone.toArray(String[]::new));
        }
        if (live.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        return poison.withoutPoison(live)
                .thenCompose(l -> finished.withoutFinished(ReadEntry.of(l), id -> !unseen.remove(id)));
    }

    /** Entries taken over by the claim loop, ready to run. */
    void offer(List<ReadEntry> fresh) {
        if (!fresh.isEmpty()) {
            ready.addAll(fresh);
            drain.drain();
        }
    }

    /** Entries read or taken over and not yet handed over. */
    int readyCount() {
        return ready.size();
    }

    /** One delivered entry. */
    private final class Entry implements BusMessage {
        private final String id;
        private final byte[] payload;
        private final RedisTurnLedger.Early early;
        private final AtomicBoolean acked = new AtomicBoolean();

        Entry(String id, byte[] payload, RedisTurnLedger.Early early) {
            this.id = id;
            this.payload = payload;
            this.early = early;
        }

        @Override
        public byte[] payload() {
            return payload;
        }

        @Override
        public Mono<Void> ack() {
            return Mono.defer(() -> {
                if (acked.get()) {
                    return Mono.empty();
                }
                return acks.ack(id)
                        .doOnSuccess(n -> {
                            acked.set(true);
                            leases.release(id);
                            unadmitted(early);
                        });
            });
        }

        @Override
        public Mono<Void> deadLetter(String reason) {
            return bus.writer().deadLetter(payload, reason, id, config.consumer())
                    .doOnSuccess(v -> unadmitted(early));
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public String toString() {
            return config.callsStream() + "/" + id;
        }
    }
}
