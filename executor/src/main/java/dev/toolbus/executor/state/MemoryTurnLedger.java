package dev.toolbus.executor.state;

import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.spi.TurnLedger;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The in-memory {@link TurnLedger}: finished turns in {@link RecentTurns}, oldest first, kept for the
 * window (on the executor's clock) and bounded by weight (each record weighs its estimated bytes, and
 * at least {@code maxBytes / maxEntries}) and count; running turns in a map (as many as turns run, which the
 * executor and the gateway bound), each with a waiter sink once a copy joins it. Admission and completion of one key
 * are atomic (both run in the running map's lock of that key), so a repeat arriving while the owner
 * finishes either joins it or sees its record.
 */
final class MemoryTurnLedger implements TurnLedger {

    private record Record(List<OutboundEvent> events, long weight) {
    }

    /**
     * A running turn. Its waiter sink is made by the first copy that joins it (most turns are never
     * repeated, so most never need one); read and written only in the running map's lock of its key.
     */
    private static final class Running {
        Sinks.One<List<OutboundEvent>> waiters;
    }

    private static final long ENTRY_OVERHEAD = 200;

    private final RecentTurns<TurnKey, Record> done;
    private final long floor;
    private final ConcurrentHashMap<TurnKey, Running> running = new ConcurrentHashMap<>();
    private final long maxRecordedBytes;

    MemoryTurnLedger(TurnLedgerSettings settings, LongSupplier nanoClock) {
        this.maxRecordedBytes = settings.maxRecordedBytes();
        this.floor = Math.max(1, settings.maxBytes() / settings.maxEntries());
        this.done = new RecentTurns<>(settings.window().toNanos(), settings.maxBytes(), settings.maxEntries(), nanoClock);
    }

    @Override
    public Mono<Admission> admit(TurnKey turn) {
        return Mono.fromSupplier(() -> admitNow(turn));
    }

    /** {@link #admit} done on the calling thread (it never waits: one compute on the running map). */
    Admission admitNow(TurnKey turn) {
        Admission[] out = new Admission[1];
        running.compute(turn, (k, owner) -> {
            if (owner != null) {
                if (owner.waiters == null) {
                    owner.waiters = Sinks.one();
                }
                out[0] = Admission.join(owner.waiters.asMono());
                return owner;
            }
            Record r = done.get(k);
            if (r != null) {
                out[0] = Admission.replay(r.events());
                return null;
            }
            out[0] = Admission.run();
            return new Running();
        });
        return out[0];
    }

    @Override
    public Mono<Void> complete(TurnKey turn, List<OutboundEvent> events) {
        return Mono.fromRunnable(() -> completeNow(turn, events));
    }

    /** {@link #complete} done on the calling thread. */
    void completeNow(TurnKey turn, List<OutboundEvent> events) {
        List<OutboundEvent> all = List.copyOf(events);
        long weight = TurnWeights.of(all, maxRecordedBytes);
        Record record = weight <= maxRecordedBytes ? new Record(all, weight) : new Record(List.of(), 0);
        Running[] owner = new Running[1];
        running.compute(turn, (k, v) -> {
            done.put(k, record, Math.max(floor,
                    ENTRY_OVERHEAD + 2L * (k.principal().key().length() + k.streamId().length() + k.turnId().length())
                    + record.weight()));
            owner[0] = v;
            return null;
        });
        if (owner[0] != null && owner[0].waiters != null) {
            owner[0].waiters.tryEmitValue(all); // the joined turns get the events even when too large to keep
        }
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
