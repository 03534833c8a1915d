package dev.toolbus.bus.redis;

import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.spi.TurnLedger;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The {@link TurnLedger} of a Redis bus, shared by every instance on the broker. A turn has one key
 * ({@code doneMarkerPrefix} and the {@link TurnKey#hash()} of the turn's principal, stream and turn ids,
 * so no two turns share one). While the turn runs, the key holds its running-turn claim, {@code c:} and
 * the consumer name of the instance running it, set with {@code SET NX PX claimMinIdle} when the turn is
 * admitted and renewed by the claim loop while the turn runs here; once the turn finished, its
 * finished-turn record ({@code 1}, or {@code e:} and its events), written over the claim with the turn's
 * events by {@link ResultWriter} (no round trip and no command of its own). A turn that fails has its
 * claim deleted, only by its owner. A repeat that finds the claim of another instance, or its own while
 * the turn still runs here, joins: it polls until the record is there (then it is settled without
 * running) or the key is empty (its owner failed or died and the claim expired: then it is admitted again
 * and runs). A repeat that finds this instance's own claim of a turn no longer running here (a release
 * lost to a cut connection) runs at once. Admissions asked for while one is on the wire go to Redis
 * together ({@link AdmitBatcher}).
 *
 * <p>One key for both, not a claim key beside the record: a turn admitted and finished costs Redis one
 * {@code SET} each time (two commands, where a claim of its own cost four: a check of the record, the
 * claim, the record and the claim's deletion), and every command costs the broker about as much
 * inside a script as outside (docs/benchmarks.md, fourteenth pass).
 */
final class RedisTurnLedger implements TurnLedger {

    private static final Logger log = LoggerFactory.getLogger(RedisTurnLedger.class);

    /** How often a joined turn looks for the record of the run it waits for. */
    static final Duration JOIN_POLL = Duration.ofMillis(100);

    /** What a running-turn claim's value starts with; a finished-turn record never does. */
    static final String CLAIM_PREFIX = "c:";

    // KEYS[1] the turn's key. 2: finished (its record); 0: still claimed; 1: neither (released).
    static final String POLL_SCRIPT = """
            local v = redis.call('GET', KEYS[1])
            if not v then
              return 1
            end
            if string.sub(v, 1, 2) == 'c:' then
              return 0
            end
            return 2
            """;

    // KEYS: turn keys; ARGV[1] the owner's claim value, ARGV[2] TTL ms (0: delete). Touches only the
    // owner's claims (never a record).
    static final String OWNED_SCRIPT = """
            local n = 0
            for i = 1, #KEYS do
              if redis.call('GET', KEYS[i]) == ARGV[1] then
                if ARGV[2] == '0' then
                  redis.call('DEL', KEYS[i])
                else
                  redis.call('PEXPIRE', KEYS[i], ARGV[2])
                end
                n = n + 1
              end
            end
            return n
            """;

    private final RedisAsyncCommands<String, byte[]> commands;
    private final RedisStreamsConfig config;
    private final Scheduler scheduler;
    /** This instance's claim value, {@code c:<consumer>}. */
    private final byte[] owner;
    /**
     * The turns this instance claimed, each as the key it was admitted with: that key keeps its hash, so
     * the result write names the turn's key without hashing it again.
     */
    private final ConcurrentHashMap<TurnKey, TurnKey> owned = new ConcurrentHashMap<>();
    private final AdmitBatcher admissions;
    private final String pollSha;
    private final String ownedSha;
    /**
     * Answers of {@link #admitRead} kept for the turns' admissions: taken once by {@link #admit}, or
     * dropped by {@link #renew} when older than half the claim's TTL (the admission then asks Redis).
     */
    private final ConcurrentHashMap<TurnKey, Early> early = new ConcurrentHashMap<>();


    RedisTurnLedger(RedisAsyncCommands<String, byte[]> commands, RedisStreamsConfig config, Scheduler scheduler) {
        this.commands = commands;
        this.config = config;
        this.scheduler = scheduler;
        this.owner = claimValue(config);
        this.admissions = new AdmitBatcher(commands, config.writeBatchBytes());
        this.pollSha = commands.digest(POLL_SCRIPT);
        this.ownedSha = commands.digest(OWNED_SCRIPT);
    }

    /** The running-turn claim value of this bus's instance: {@code c:} and its consumer name. */
    static byte[] claimValue(RedisStreamsConfig config) {
        return (CLAIM_PREFIX + config.consumer()).getBytes(StandardCharsets.UTF_8);
    }

    /** Whether a turn key's value is a running turn's claim (not a finished-turn record). */
    static boolean isClaim(byte[] value) {
        return value.length >= 2 && value[0] == 'c' && value[1] == ':';
    }

    /** How long a claim lives unless renewed, in milliseconds (at least 1). */
    static long claimTtlMs(RedisStreamsConfig config) {
        return Math.max(1, config.claimMinIdle().toMillis());
    }

    @Override
    public Mono<Admission> admit(TurnKey turn) {
        String key = config.doneMarkerKey(turn);
        Early e = early.remove(turn);
        if (e != null) {
            // claimed (or found claimed) with the read of its entry
            return Mono.just(decide(turn, e.answer, key));
        }
        return admissions.admit(key, owner, ascii(claimTtlMs(config)))
                .map(r -> decide(turn, r, key))
                .onErrorResume(x -> {
                    // run rather than lose the turn; its events are still written once (the record is checked on write)
                    log.warn("redis bus {}: turn claim {} failed, running it: {}", config.consumer(), key, x.toString());
                    return Mono.just(Admission.run());
                });
    }

    /** The admission an answer of the admission script means. */
    private Admission decide(TurnKey turn, long r, String key) {
        if (r == 1) {
            owned.put(turn, turn);
            return Admission.run();
        }
        if (r == 3 && owned.putIfAbsent(turn, turn) == null) {
            // this instance's own claim, but the turn no longer runs here: a release that could not reach
            // Redis (a cut connection) left it behind. Waiting for it to expire would let the stream's
            // later turns overtake this one, so it runs now.
            return Admission.run();
        }
        if (r == 2) {
            // finished since the reader checked (its events are on the conversation's stream): settle
            // without running; not replayed, the entry may be a redelivery
            return Admission.replay(List.of());
        }
        return Admission.join(join(key));
    }

    /**
     * Admits the turns of entries just read, in one script call on {@code connection} (the read
     * connection, idle between two reads): the reader's finished-turn check and the turns' claims in the
     * same round trip. {@code admit[i]} false (a cancel) only checks; so does a turn already asked for
     * (twice in the batch, or read before and not yet admitted), which its admission asks again. The
     * answer per turn is the admission script's; a turn claimed here is this instance's at once (renewed
     * by the claim loop), and each answer but "finished" is kept for the turn's {@link #admit}
     * (and set in {@code kept[i]}): the entry that carries it gives it back with {@link #unadmitted} when
     * settled.
     */
    CompletableFuture<long[]> admitRead(RedisAsyncCommands<String, byte[]> connection, List<TurnKey> turns,
                                        boolean[] admit, Early[] kept) {
        String[] keys = new String[turns.size()];
        byte[][] args = new byte[2 + turns.size()][];
        args[0] = owner;
        args[1] = ascii(claimTtlMs(config));
        boolean[] asked = new boolean[turns.size()];
        Set<TurnKey> seen = new HashSet<>();
        for (int i = 0; i < turns.size(); i++) {
            TurnKey t = turns.get(i);
            keys[i] = config.doneMarkerKey(t);
            asked[i] = admit[i] && seen.add(t) && !early.containsKey(t);
            args[2 + i] = asked[i] ? AdmitBatcher.ADMIT : AdmitBatcher.CHECK;
        }
        return Scripts.many(connection, admissions.sha(), AdmitBatcher.ADMIT_MANY_SCRIPT, keys, args).thenApply(answers -> {
            if (answers == null || answers.size() != turns.size()) {
                throw new IllegalStateException("unexpected answer to the read admission script: " + answers);
            }
            long now = System.nanoTime();
            long[] out = new long[turns.size()];
            for (int i = 0; i < out.length; i++) {
                long r = answers.get(i) instanceof Long n ? n : -1;
                out[i] = r;
                if (!asked[i] || r < 0 || r == 2) {
                    continue;
                }
                TurnKey t = turns.get(i);
                if (r == 1) {
                    owned.put(t, t);
                }
                Early e = new Early(t, r, now);
                early.put(t, e);
                kept[i] = e;
            }
            return out;
        });
    }

    /** Emits an (empty) list when the record appears, completes empty when the claim is gone without one. */
    private Mono<List<OutboundEvent>> join(String key) {
        log.debug("redis bus {}: {} runs elsewhere; waiting for it", config.consumer(), key);
        return Flux.interval(JOIN_POLL, JOIN_POLL, scheduler)
                .onBackpressureDrop() // a tick while a poll is still on the wire (a slow broker) is skipped
                .concatMap(t -> run(pollSha, POLL_SCRIPT, new String[] {key}).onErrorReturn(0L))
                .filter(r -> r != 0)
                .next()
                .flatMap(r -> r == 2 ? Mono.just(List.<OutboundEvent>of()) : Mono.empty());
    }

    /**
     * The key this turn was admitted with when this instance holds its claim (the result write may
     * release it), else null.
     */
    TurnKey held(String streamId, String turnId) {
        return owned.get(TurnKey.of(config.principal(), streamId, turnId));
    }

    /** The result write replaced this turn's claim with its record: nothing is left to release or renew. */
    void releasedWithRecord(TurnKey turn) {
        owned.remove(turn);
    }

    @Override
    public Mono<Void> complete(TurnKey turn, List<OutboundEvent> events) {
        // the record was written with the events (ResultWriter), over the claim; if the write was not the
        // turn's own, the claim is released here (only while it is still this instance's claim)
        return Mono.fromRunnable(() -> release(turn));
    }

    @Override
    public void release(TurnKey turn) {
        TurnKey held = owned.remove(turn);
        if (held == null) {
            return;
        }
        String claim = config.doneMarkerKey(held);
        run(ownedSha, OWNED_SCRIPT, new String[] {claim}, owner, ascii(0)).subscribe(null,
                e -> log.warn("redis bus {}: claim {} not released (it expires in {}): {}", config.consumer(), claim,
                        config.claimMinIdle(), e.toString()));
    }

    /**
     * Extends the claims of the turns running here (called by the claim loop). An answer of
     * {@link #admitRead} no admission took within half the claim's TTL (an entry the executor could not
     * decode, or one that waits long for room) is dropped first: that turn's claim is no longer renewed
     * unless the turn was admitted, and a later admission asks Redis (finding its own claim, it runs).
     */
    void renew() {
        long stale = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(claimTtlMs(config)) / 2;
        for (var e : early.entrySet()) {
            if (e.getValue().atNanos - stale < 0 && early.remove(e.getKey(), e.getValue()) && e.getValue().answer == 1) {
                owned.remove(e.getKey(), e.getKey());
            }
        }
        if (owned.isEmpty()) {
            return;
        }
        String[] claims = owned.values().stream().map(config::doneMarkerKey).toArray(String[]::new);
        run(ownedSha, OWNED_SCRIPT, claims, owner, ascii(claimTtlMs(config))).subscribe(null,
                e -> log.warn("redis bus {}: turn claims not renewed: {}", config.consumer(), e.toString()));
    }

    /**
     * The entry of a turn its read admitted was settled: if no admission took that answer (the executor
     * could not decode the entry, or the entry was never handed over), the claim made with it is given back.
     */
    void unadmitted(Early e) {
        // only this entry's answer: a later copy of the turn, read since, may have one of its own
        if (early.remove(e.turn, e) && e.answer == 1) {
            release(e.turn);
        }
    }

    /** Turns whose read admitted them, not yet taken by their admission (tests). */
    int early() {
        return early.size();
    }

    /** Turns claimed by this instance (tests, gauges). */
    int running() {
        return owned.size();
    }

    private Mono<Long> run(String digest, String script, String[] keys, byte[]... args) {
        return Scripts.one(commands, digest, script, keys, args);
    }

    /** An answer of {@link #admitRead} for a turn, and when it came; compared by identity. */
    static final class Early {
        final TurnKey turn;
        final long answer;
        final long atNanos;

        Early(TurnKey turn, long answer, long atNanos) {
            this.turn = turn;
            this.answer = answer;
            this.atNanos = atNanos;
        }
    }

    private static byte[] ascii(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }
}
