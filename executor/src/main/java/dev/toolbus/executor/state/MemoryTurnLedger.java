package dev.toolbus.executor.state;

import dev.toolbus.internal.EncodedHandOver;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.spi.TurnLedger;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The in-memory {@link TurnLedger}: finished turns in {@link RecentTurns}, oldest first, kept for the
 * window (on the executor's clock) and bounded by bytes and count; running turns in a map (as many as
 * turns run, which the executor and the gateway bound), each with a waiter sink once a copy joins it.
 * Admission and completion of one key are atomic (both run in the running map's lock of that key), so a
 * repeat arriving while the owner finishes either joins it or sees its record.
 *
 * <p>A record keeps the events encoded (their wire JSON), written into the ring's bytes, and a replay
 * decodes them, as the brokers' ledgers do: a finished turn leaves no object behind for the collector
 * to copy and promote (see {@link RecentTurns}).
 */
final class MemoryTurnLedger implements TurnLedger {

    private static final Logger log = LoggerFactory.getLogger(MemoryTurnLedger.class);

    /**
     * A running turn. Its waiter sink is made by the first copy that joins it (most turns are never
     * repeated, so most never need one); read and written only in the running map's lock of its key.
     */
    private static final class Running {
        Sinks.One<List<OutboundEvent>> waiters;
    }

    private final RecentTurns done;
    private final ConcurrentHashMap<TurnKey, Running> running = new ConcurrentHashMap<>();
    private final long maxRecordedBytes;
    private final EventCodec codec = EventCodec.defaults();

    MemoryTurnLedger(TurnLedgerSettings settings, LongSupplier nanoClock) {
        this.maxRecordedBytes = settings.maxRecordedBytes();
        this.done = new RecentTurns(settings.window().toNanos(), settings.maxBytes(), settings.maxEntries(),
                settings.maxRecordedBytes(), nanoClock);
    }

    @Override
    public Mono<Admission> admit(TurnKey turn) {
        return Mono.fromSupplier(() -> admitNow(turn));
    }

    /** {@link #admit} done on the calling thread (it never waits: one compute on the running map). */
    Admission admitNow(TurnKey turn) {
        Admission[] out = new Admission[1];
        byte[][][] recorded = new byte[1][][];
        running.compute(turn, (k, owner) -> {
            if (owner != null) {
                if (owner.waiters == null) {
                    owner.waiters = Sinks.one();
                }
                out[0] = Admission.join(owner.waiters.asMono());
                return owner;
            }
            recorded[0] = done.get(k);
            if (recorded[0] != null) {
                return null; // decoded below, outside the map's lock
            }
            out[0] = Admission.run();
            return new Running();
        });
        return recorded[0] != null ? Admission.replay(decode(turn, recorded[0])) : out[0];
    }

    @Override
    public Mono<Void> complete(TurnKey turn, List<OutboundEvent> events) {
        return Mono.fromRunnable(() -> completeNow(turn, events));
    }

    /** {@link #complete} done on the calling thread. */
    void completeNow(TurnKey turn, List<OutboundEvent> events) {
        List<OutboundEvent> all = List.copyOf(events);
        byte[][] record = encode(turn, all);
        Running[] owner = new Running[1];
        running.compute(turn, (k, v) -> {
            done.put(k, record);
            owner[0] = v;
            return null;
        });
        if (record != null) {
            // the ring copied the bytes: the bus's encode of these events, next on this thread, takes them
            for (int i = 0; i < record.length; i++) {
                EncodedHandOver.offer(all.get(i), record[i]);
            }
        }
        if (owner[0] != null && owner[0].waiters != null) {
            owner[0].waiters.tryEmitValue(all); // the joined turns get the events even when too large to keep
        }
    }

    /**
     * The events encoded, or null when their bytes are more than {@code maxRecordedBytes} (encoding
     * stops at the first event past it; the estimate first turns away a turn far too large to encode).
     */
    private byte[][] encode(TurnKey turn, List<OutboundEvent> events) {
        long far = maxRecordedBytes >= Long.MAX_VALUE / 4 ? Long.MAX_VALUE / 2 : 2 * maxRecordedBytes;
        if (TurnWeights.of(events, far) > far) {
            return null;
        }
        byte[][] encoded = new byte[events.size()][];
        long bytes = 0;
        for (int i = 0; i < encoded.length; i++) {
            try {
                encoded[i] = codec.encodeToBytes(events.get(i));
            } catch (RuntimeException e) {
                // the bus's own encode of the same event fails too; remembered, without events
                log.warn("turn {}/{}: event {} cannot be kept for replays: {}", turn.streamId(), turn.turnId(), i,
                        e.toString());
                return null;
            }
            bytes += encoded[i].length;
            if (bytes > maxRecordedBytes) {
                return null;
            }
        }
        return encoded;
    }

    /** The recorded events decoded, as they were published (none when the record kept none). */
    private List<OutboundEvent> decode(TurnKey turn, byte[][] events) {
        if (events.length == 0) {
            return List.of();
        }
        OutboundEvent[] out = new OutboundEvent[events.length];
        for (int i = 0; i < out.length; i++) {
            try {
                out[i] = codec.decodeOutbound(events[i]);
            } catch (RuntimeException e) {
                // cannot happen for what this codec encoded; the turn still counts as done (never run twice)
                log.error("turn {}/{}: recorded event {} cannot be read back; replayed without events",
                        turn.streamId(), turn.turnId(), i, e);
                return List.of();
            }
        }
        return List.of(out);
    }

    @Override
    public void release(TurnKey turn) {
        Running owner = running.remove(turn);
        if (owner != null && owner.waiters != null) {
            owner.waiters.tryEmitEmpty();
        }
    }

    /** Finished turns kept (tests). */
    long size() {
        return done.size();
    }

    /** Their total weight (tests). */
    long weight() {
        return done.weight();
    }

    /** Turns running (tests). */
    int running() {
        return running.size();
    }
}
