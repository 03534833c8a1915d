package dev.toolbus.bus.redis;

import dev.toolbus.protocol.EventIdPeek;
import dev.toolbus.spi.TurnKey;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Settles, before they run, the entries read whose turn is already finished (its key holds its
 * finished-turn record; one round trip per read batch, which for entries read as new also claims their turns:
 * {@link RedisTurnLedger#admitRead}). A redelivered entry of a finished turn is acknowledged (its
 * events were written when it ran); a new entry of a finished turn (the client sent the turn again)
 * gets the recorded events published again, marked {@code "replayed":true}, and is acknowledged; a
 * cancel of a finished turn is acknowledged (nothing to cancel). On an error every entry is run
 * (again rather than lost).
 *
 * <p>An entry read as new is replayed only while it is still pending for this consumer (checked in the
 * replay's script): a read whose answer was held up (a stalled instance or connection) longer than
 * {@code claimMinIdle} delivers entries that another instance took over, ran and recorded meanwhile;
 * they are not resent turns, and are left to that instance.
 */
final class FinishedTurnFilter {

    private static final Logger log = LoggerFactory.getLogger(FinishedTurnFilter.class);

    private final RedisStreamsBus bus;
    private final RedisStreamsConfig config;
    private final AckBatcher acks;

    FinishedTurnFilter(RedisStreamsBus bus, AckBatcher acks) {
        this.bus = bus;
        this.config = bus.cfg();
        this.acks = acks;
    }

    /** The read's finished-turn check as the ledger's admission of its turns; each entry keeps its turn's answer. */
    private static CompletableFuture<boolean[]> admitRead(RedisTurnLedger ledger,
                                                          RedisAsyncCommands<String, byte[]> connection,
                                                          List<ReadEntry> live, int[] checked, List<TurnKey> turns,
                                                          boolean[] admit) {
        RedisTurnLedger.Early[] kept = new RedisTurnLedger.Early[turns.size()];
        return ledger.admitRead(connection, turns, admit, kept).thenApply(answers -> {
            boolean[] found = new boolean[answers.length];
            for (int i = 0; i < answers.length; i++) {
                found[i] = answers[i] == 2;
            }
            for (int i = 0; i < live.size(); i++) {
                if (checked[i] >= 0) {
                    live.get(i).early = kept[checked[i]];
                }
            }
            return found;
        });
    }

    /**
     * The entries to run, in order.
     *
     * @param redelivered whether an entry was delivered before (acknowledged without a replay)
     */
    CompletableFuture<List<ReadEntry>> withoutFinished(List<ReadEntry> live, Predicate<String> redelivered) {
        return withoutFinished(live, redelivered, null);
    }

    /**
     * As above; with {@code readConnection} (entries just read as new) the check also admits their turns
     * in the same script call on that connection ({@link RedisTurnLedger#admitRead}), so their admissions
     * need no round trip of their own.
     */
    CompletableFuture<List<ReadEntry>> withoutFinished(List<ReadEntry> live, Predicate<String> redelivered,
                                                       RedisAsyncCommands<String, byte[]> readConnection) {
        if (live.isEmpty() || !config.doneMarkersEnabled()) {
            return CompletableFuture.completedFuture(live);
        }
        List<String> keys = new ArrayList<>(live.size());
        List<TurnKey> turns = new ArrayList<>(live.size());
        boolean[] admit = new boolean[live.size()];
        int[] checked = new int[live.size()]; // index into keys, -1 when not checked
        for (int i = 0; i < live.size(); i++) {
            EventIdPeek k = live.get(i).peek();
            boolean check = k.streamId() != null && k.turnId() != null && (k.isTurn() || k.isCancel());
            checked[i] = check ? keys.size() : -1;
            if (check) {
                TurnKey t = TurnKey.of(config.principal(), k.streamId(), k.turnId());
                admit[turns.size()] = k.isTurn();
                turns.add(t);
                keys.add(config.doneMarkerKey(t));
            }
        }
        if (keys.isEmpty()) {
            return CompletableFuture.completedFuture(live);
        }
        RedisTurnLedger ledger = bus.redisLedger();
        CompletableFuture<boolean[]> finished = readConnection == null || ledger == null ? bus.doneMarkers().exist(keys)
                : admitRead(ledger, readConnection, live, checked, turns, admit);
        return finished.handle((found, error) -> {
            if (error != null) {
                log.warn("redis bus {}: finished-turn check failed, running {} turns: {}",
                        config.consumer(), live.size(), error.toString());
                return live;
            }
            List<ReadEntry> run = new ArrayList<>(live.size());
            int settled = 0;
            int old = 0;
            for (int i = 0; i < live.size(); i++) {
                ReadEntry r = live.get(i);
                StreamMessage<String, byte[]> m = r.message;
                if (checked[i] < 0 || !found[checked[i]]) {
                    run.add(r);
                    continue;
                }
                settled++;
                EventIdPeek k = r.peek();
                boolean again = redelivered.test(m.getId());
                old += again ? 1 : 0;
                Mono<Long> answer = again || !k.isTurn() ? Mono.just(0L)
                        : bus.writer().replay(config.resultsKey(k.streamId()), config.doneMarkerKey(k.streamId(), k.turnId()),
                                m.getId());
                answer.flatMap(n -> {
                    if (n == -2) {
                        log.info("redis bus {}: entry {} was taken over by another instance while its read was on the "
                                + "wire; its turn finished there: left alone", config.consumer(), m.getId());
                        return Mono.empty();
                    }
                    return acks.ack(m.getId());
                }).subscribe(null, e -> log.warn(
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
}
