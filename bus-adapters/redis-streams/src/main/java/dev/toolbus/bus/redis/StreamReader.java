package dev.toolbus.bus.redis;

import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.EventIds;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.spi.BusMessage;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAutoClaimArgs;
import io.lettuce.core.XClaimArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.models.stream.ClaimedMessages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The read side of {@link RedisStreamsBus}: a demand-driven {@code XREADGROUP} loop on its own
 * connection, the claim loop ({@code XAUTOCLAIM} of other consumers' idle entries, lease renewal of
 * this instance's running entries, gauges), the finished-turn filter for redelivered entries, and the
 * book-keeping of delivered-but-unsettled entries for a graceful shutdown.
 *
 * <p>All emissions go through one drain loop ({@link #drain()}), so the sink sees one thread at a time
 * and never more entries than requested.
 */
final class StreamReader {

    private static final Logger log = LoggerFactory.getLogger(StreamReader.class);
    private static final long MAX_BACKOFF_MS = 5_000;
    private static final long MIN_BACKOFF_MS = 50;

    private final RedisStreamsBus bus;
    private final RedisStreamsConfig config;
    private final RedisAsyncCommands<String, byte[]> blocking;
    private final RedisAsyncCommands<String, byte[]> commands;
    private final Scheduler scheduler;
    private final AckBatcher acks;

    private final ConcurrentLinkedQueue<StreamMessage<String, byte[]>> ready = new ConcurrentLinkedQueue<>();
    /** Control entries the router gave back to run here (handed over before {@link #ready}). */
    private final ConcurrentLinkedQueue<StreamMessage<String, byte[]>> routedHere = new ConcurrentLinkedQueue<>();
    /** Shares control events with the other instances; null when no instance id is configured. */
    private final ControlRouter router;
    /**
     * Entries handed to the executor and not settled: {delivered at, lease last renewed at}, nanoTime.
     * A lease is renewed for at most {@link #LEASE_RENEWALS} × claimMinIdle after delivery, so an entry
     * the executor never settles (its publish failed) is eventually delivered again.
     */
    private final Map<String, long[]> leases = new ConcurrentHashMap<>();
    static final int LEASE_RENEWALS = 10;
    private final AtomicInteger wip = new AtomicInteger();
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private volatile FluxSink<BusMessage> sink;
    private volatile boolean reading;
    private volatile boolean waiting; // a retry after an error is scheduled
    private volatile boolean stopped;
    private volatile boolean paused;
    private volatile boolean completed;
    private volatile boolean history = true; // first this consumer's own pending entries, then new ones
    private volatile String historyCursor = "0-0";
    private volatile String claimCursor = "0-0";
    /** Disconnects of the read connection so far: a read sent before one may have lost its answer. */
    private final AtomicLong readCuts = new AtomicLong();
    /**
     * Ids a read returned after a reconnect, not handed over but read again from the pending list:
     * new to this consumer, so a finished turn among them is answered as a new entry is.
     */
    private final Set<String> unseen = ConcurrentHashMap.newKeySet();
    private volatile boolean claiming;
    private long backoffMs = MIN_BACKOFF_MS;
    private Disposable claimLoop;

    StreamReader(RedisStreamsBus bus, RedisAsyncCommands<String, byte[]> blocking,
                 RedisAsyncCommands<String, byte[]> commands, Scheduler scheduler, ControlRouter router) {
        this.router = router;
        if (router != null) {
            router.onReceived(this::drain);
        }
        this.bus = bus;
        this.config = bus.cfg();
        this.blocking = blocking;
        this.commands = commands;
        this.scheduler = scheduler;
        this.acks = new AckBatcher(commands, config.callsStream(), config.group());
    }

    Flux<BusMessage> flux() {
        return Flux.create(s -> {
            if (!subscribed.compareAndSet(false, true)) {
                s.error(new IllegalStateException("receive() of a Redis bus can be subscribed once"));
                return;
            }
            sink = s;
            s.onRequest(n -> drain());
            s.onCancel(this::stop);
            long period = config.claimInterval().toMillis();
            claimLoop = scheduler.schedulePeriodically(this::claimRound, period, period, TimeUnit.MILLISECONDS);
            scheduler.schedule(bus::refreshGauges);
            drain();
        }, FluxSink.OverflowStrategy.ERROR);
    }

    int inflight() {
        return leases.size();
    }

    /** Stops (true) or resumes taking new entries from the group; control events still arrive. */
    void pause(boolean on) {
        paused = on;
        drain();
    }

    /** Paused, and no read in progress or about to be retried. */
    boolean readingStopped() {
        return paused && !reading && !waiting;
    }

    void stop() {
        stopped = true;
        drain();
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
        if (claimLoop != null) {
            claimLoop.dispose();
        }
        drain();
    }

    // ---- the drain loop ----

    void drain() {
        if (wip.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        do {
            FluxSink<BusMessage> s = sink;
            if (s != null && !completed) {
                StreamMessage<String, byte[]> m;
                if (router != null) {
                    BusMessage shared;
                    while (!stopped && s.requestedFromDownstream() > 0 && (shared = router.poll()) != null) {
                        s.next(shared);
                    }
                    while (s.requestedFromDownstream() > 0 && (m = routedHere.poll()) != null) {
                        handOver(s, m, m.getBody().get(RedisStreamsBus.EVENT_FIELD));
                    }
                }
                while (s.requestedFromDownstream() > 0 && (m = ready.poll()) != null) {
                    deliver(s, m);
                }
                if (stopped) {
                    if (!reading) {
                        completed = true;
                        s.complete();
                    }
                } else if (!paused && !reading && !waiting && ready.isEmpty() && s.requestedFromDownstream() > 0) {
                    reading = true;
                    read((int) Math.min(config.batchSize(), s.requestedFromDownstream()));
                }
            }
            missed = wip.addAndGet(-missed);
        } while (missed != 0);
    }

    private void deliver(FluxSink<BusMessage> s, StreamMessage<String, byte[]> m) {
        byte[] payload = m.getBody() == null ? null : m.getBody().get(RedisStreamsBus.EVENT_FIELD);
        if (payload == null || payload.length > config.maxEventBytes()) {
            rejectWithoutDelivery(m, payload);
            return;
        }
        if (router != null && isControl(payload)) {
            // leased while the router decides, so the claim loop leaves it alone
            long now = System.nanoTime();
            leases.put(m.getId(), new long[] {now, now});
            router.route(payload).whenComplete((here, error) -> {
                if (error != null || here) {
                    leases.remove(m.getId());
                    routedHere.add(m);
                    drain();
                } else {
                    acks.ack(m.getId()).subscribe(null,
                            e -> log.warn("redis bus {}: ack of routed control entry {} failed: {}", config.consumer(),
                                    m.getId(), e.toString()),
                            () -> leases.remove(m.getId()));
                }
            });
            return;
        }
        handOver(s, m, payload);
    }

    private void handOver(FluxSink<BusMessage> s, StreamMessage<String, byte[]> m, byte[] payload) {
        long now = System.nanoTime();
        leases.put(m.getId(), new long[] {now, now});
        s.next(new Entry(m.getId(), payload));
    }

    /** A cheap look before parsing: control events carry one of these type names. */
    private static boolean isControl(byte[] payload) {
        EntryPeek p = EntryPeek.of(payload);
        return p.isCancel() || p.isAnswer();
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
                reading = false;
                drain();
                return;
            }
            if (!fromHistory) {
                withoutFinished(messages, id -> false).whenComplete((fresh, e2) -> {
                    ready.addAll(fresh != null ? fresh : messages);
                    reading = false;
                    drain();
                });
                return;
            }
            if (messages.isEmpty()) {
                history = false;
                unseen.clear();
                reading = false;
                drain();
                return;
            }
            historyCursor = messages.get(messages.size() - 1).getId();
            log.info("redis bus {}: {} entries pending for this consumer (left by an earlier run, or by a cut read)", config.consumer(),
                    messages.size());
            redelivered(messages).whenComplete((fresh, e2) -> {
                if (fresh != null) {
                    ready.addAll(fresh);
                }
                reading = false;
                drain();
            });
        });
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
            drain();
            return;
        }
        scheduler.schedule(() -> {
            waiting = false;
            drain();
        }, delay, TimeUnit.MILLISECONDS);
    }

    // ---- redelivery: finished-turn filter ----

    /**
     * Of entries delivered before (taken over, or this consumer's leftovers), acknowledges those whose
     * turn is marked finished and returns the others. On an error every entry is returned (run again
     * rather than lost).
     */
    private CompletableFuture<List<StreamMessage<String, byte[]>>> redelivered(List<StreamMessage<String, byte[]>> in) {
        List<StreamMessage<String, byte[]>> live = new ArrayList<>(in.size());
        List<String> gone = new ArrayList<>();
        for (StreamMessage<String, byte[]> m : in) {
            if (m.getBody() == null || m.getBody().isEmpty()) {
                gone.add(m.getId()); // deleted from the stream (trimmed) while pending
            } else if (!leases.containsKey(m.getId())) {
                live.add(m);
            }
        }
        if (!gone.isEmpty()) {
            commands.xack(config.callsStream(), config.group(), gone.toArray(String[]::new));
        }
        if (live.isEmpty()) {
            return CompletableFuture.completedFuture(live);
        }
        return withoutPoison(live).thenCompose(l -> withoutFinished(l, id -> !unseen.remove(id)));
    }

    /**
     * Dead-letters the entries delivered more than {@code maxDeliveries} times (with an {@code error}
     * event on their stream) and returns the others. Delivery counts come from {@code XPENDING}; when
     * they cannot be read, every entry is returned.
     */
    private CompletableFuture<List<StreamMessage<String, byte[]>>> withoutPoison(List<StreamMessage<String, byte[]>> live) {
        List<CompletableFuture<Long>> counts = new ArrayList<>(live.size());
        for (StreamMessage<String, byte[]> m : live) {
            counts.add(commands.xpending(config.callsStream(), config.group(),
                            io.lettuce.core.Range.create(m.getId(), m.getId()), io.lettuce.core.Limit.from(1))
                    .toCompletableFuture()
                    .thenApply(p -> p.isEmpty() ? 0L : p.get(0).getRedeliveryCount()));
        }
        return CompletableFuture.allOf(counts.toArray(CompletableFuture[]::new)).handle((v, error) -> {
            if (error != null) {
                log.warn("redis bus {}: delivery counts unreadable, running {} redelivered entries: {}",
                        config.consumer(), live.size(), error.toString());
                return live;
            }
            List<StreamMessage<String, byte[]>> run = new ArrayList<>(live.size());
            for (int i = 0; i < live.size(); i++) {
                long deliveries = counts.get(i).join();
                if (deliveries > config.maxDeliveries()) {
                    poison(live.get(i), deliveries);
                } else {
                    run.add(live.get(i));
                }
            }
            return run;
        });
    }

    private void poison(StreamMessage<String, byte[]> m, long deliveries) {
        byte[] payload = m.getBody().get(RedisStreamsBus.EVENT_FIELD);
        EventIds keys = payload == null ? EventIds.NONE : EventIds.peek(payload);
        String reason = "delivered " + deliveries + " times without being settled (maxDeliveries "
                + config.maxDeliveries() + ")";
        log.warn("redis bus {}: entry {} is a poison turn, dead-lettered: {}", config.consumer(), m.getId(), reason);
        Mono<Void> answer = Mono.empty();
        if (keys.streamId() != null) {
            answer = bus.publish(List.of(new ErrorEvent(keys.streamId(), keys.turnId(), ErrorCode.REJECTED,
                    "turn " + (keys.turnId() != null ? keys.turnId() + " " : "") + "was " + reason
                            + "; it was moved to the dead-letter stream")));
        }
        bus.writer().deadLetter(payload, reason, m.getId(), config.consumer(), deliveries)
                .then(answer)
                .then(Mono.fromCompletionStage(() -> commands.xack(config.callsStream(), config.group(), m.getId())))
                .subscribe(null, e -> log.warn("redis bus {}: dead-lettering poison entry {} failed (it stays pending): {}",
                        config.consumer(), m.getId(), e.toString()));
    }

    /**
     * Of entries read, settles those whose turn is already finished and returns the others, in order. A
     * redelivered entry of a finished turn is acknowledged (its events were written when it ran); a new
     * entry of a finished turn (the client sent the turn again) gets the recorded events published
     * again, marked {@code "replayed":true}, and is acknowledged; a cancel of a finished turn is
     * acknowledged (nothing to cancel). On an error every entry is returned (run again rather than lost).
     */
    private CompletableFuture<List<StreamMessage<String, byte[]>>> withoutFinished(
            List<StreamMessage<String, byte[]>> live, java.util.function.Predicate<String> redelivered) {
        if (live.isEmpty() || !config.doneMarkersEnabled()) {
            return CompletableFuture.completedFuture(live);
        }
        List<EntryPeek> peeks = new ArrayList<>(live.size());
        List<String> keys = new ArrayList<>(live.size());
        int[] checked = new int[live.size()]; // index into keys, -1 when not checked
        for (int i = 0; i < live.size(); i++) {
            StreamMessage<String, byte[]> m = live.get(i);
            EntryPeek k = EntryPeek.of(m.getBody() == null ? null : m.getBody().get(RedisStreamsBus.EVENT_FIELD));
            peeks.add(k);
            boolean check = k.streamId() != null && k.turnId() != null && (k.isIdentifiedTurn() || k.isCancel());
            checked[i] = check ? keys.size() : -1;
            if (check) {
                keys.add(config.doneMarkerKey(k.streamId(), k.turnId()));
            }
        }
        if (keys.isEmpty()) {
            return CompletableFuture.completedFuture(live);
        }
        // one round trip for the batch
        return bus.doneMarkers().exist(keys).handle((found, error) -> {
            if (error != null) {
                log.warn("redis bus {}: finished-turn check failed, running {} turns: {}",
                        config.consumer(), live.size(), error.toString());
                return live;
            }
            List<StreamMessage<String, byte[]>> run = new ArrayList<>(live.size());
            int settled = 0;
            int old = 0;
            for (int i = 0; i < live.size(); i++) {
                StreamMessage<String, byte[]> m = live.get(i);
                if (checked[i] < 0 || !found[checked[i]]) {
                    run.add(m);
                    continue;
                }
                settled++;
                EntryPeek k = peeks.get(i);
                boolean again = redelivered.test(m.getId());
                old += again ? 1 : 0;
                Mono<?> answer = again || !k.isIdentifiedTurn() ? Mono.empty()
                        : bus.writer().replay(config.resultsKey(k.streamId()), config.doneMarkerKey(k.streamId(), k.turnId()));
                answer.then(acks.ack(m.getId())).subscribe(null, e -> log.warn(
                        "redis bus {}: settling finished-turn entry {} failed (it stays pending): {}",
                        config.consumer(), m.getId(), e.toString()));
            }
            if (settled > 0) {
                log.info("redis bus {}: {} entries ({} redelivered) were of finished turns; settled without running",
                        config.consumer(), settled, old);
            }
            return run;
        });
    }

    // ---- the claim loop ----

    private void claimRound() {
        if (stopped && leases.isEmpty()) {
            return;
        }
        try {
            renewLeases();
            bus.renewTurnClaims();
            bus.refreshGauges();
            if (!stopped && !claiming && ready.size() < config.batchSize()) {
                claim();
            }
        } catch (RuntimeException e) {
            log.warn("redis bus {}: claim round failed: {}", config.consumer(), e.toString());
        }
    }

    /** Resets the idle time of entries still running here, so other instances leave them alone. */
    private void renewLeases() {
        long now = System.nanoTime();
        long renewAfter = config.claimMinIdle().toNanos() / 3;
        long giveUpAfter = config.claimMinIdle().toNanos() * LEASE_RENEWALS;
        List<String> due = new ArrayList<>();
        leases.forEach((id, times) -> {
            if (now - times[0] >= giveUpAfter) {
                leases.remove(id);
                log.warn("redis bus {}: entry {} unsettled after {} x {}; it will be delivered again", config.consumer(),
                        id, LEASE_RENEWALS, config.claimMinIdle());
            } else if (now - times[1] >= renewAfter) {
                due.add(id);
            }
        });
        if (due.isEmpty()) {
            return;
        }
        commands.xclaim(config.callsStream(), bus.consumer(), XClaimArgs.Builder.justid(), due.toArray(String[]::new))
                .thenAccept(ok -> due.forEach(id -> leases.computeIfPresent(id, (k, v) -> new long[] {v[0], now})));
    }

    private void claim() {
        claiming = true;
        XAutoClaimArgs<String> args = XAutoClaimArgs.Builder
                .xautoclaim(bus.consumer(), config.claimMinIdle().toMillis(), claimCursor)
                .count(config.claimBatch());
        commands.xautoclaim(config.callsStream(), args).toCompletableFuture()
                .thenCompose((ClaimedMessages<String, byte[]> claimed) -> {
                    claimCursor = claimed.getId() == null ? "0-0" : claimed.getId();
                    List<StreamMessage<String, byte[]>> msgs = claimed.getMessages();
                    if (msgs.isEmpty()) {
                        return CompletableFuture.completedFuture(List.<StreamMessage<String, byte[]>>of());
                    }
                    log.info("redis bus {}: took over {} entries idle for more than {}", config.consumer(),
                            msgs.size(), config.claimMinIdle());
                    return redelivered(msgs);
                })
                .whenComplete((fresh, error) -> {
                    claiming = false;
                    if (error != null) {
                        log.warn("redis bus {}: XAUTOCLAIM failed: {}", config.consumer(), error.toString());
                        return;
                    }
                    if (!fresh.isEmpty()) {
                        ready.addAll(fresh);
                        drain();
                    }
                });
    }

    // ---- entries the bus settles itself ----

    private void rejectWithoutDelivery(StreamMessage<String, byte[]> m, byte[] payload) {
        String reason = payload == null
                ? "entry has no '" + RedisStreamsBus.EVENT_FIELD + "' field"
                : "event of " + payload.length + " bytes is above the " + config.maxEventBytes() + "-byte limit";
        EventIds keys = payload == null ? EventIds.NONE : EventIds.peek(payload);
        log.warn("redis bus {}: entry {} dead-lettered: {}", config.consumer(), m.getId(), reason);
        Mono<Void> answer = Mono.empty();
        if (keys.streamId() != null) {
            OutboundEvent error = new ErrorEvent(keys.streamId(), keys.turnId(), ErrorCode.BAD_EVENT, reason);
            answer = bus.publish(List.of(error));
        }
        byte[] kept = payload == null ? new byte[0]
                : java.util.Arrays.copyOf(payload, Math.min(payload.length, EventIds.SCAN_LIMIT));
        bus.writer().deadLetter(kept, reason, m.getId(), config.consumer())
                .then(answer)
                .then(Mono.fromCompletionStage(() -> commands.xack(config.callsStream(), config.group(), m.getId())))
                .subscribe(null, e -> log.warn("redis bus {}: dead-lettering {} failed (it stays pending): {}",
                        config.consumer(), m.getId(), e.toString()));
    }

    /** One delivered entry. */
    private final class Entry implements BusMessage {
        private final String id;
        private final byte[] payload;
        private final AtomicBoolean acked = new AtomicBoolean();

        Entry(String id, byte[] payload) {
            this.id = id;
            this.payload = payload;
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
                            leases.remove(id);
                        });
            });
        }

        @Override
        public Mono<Void> deadLetter(String reason) {
            return bus.writer().deadLetter(payload, reason, id, config.consumer());
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
