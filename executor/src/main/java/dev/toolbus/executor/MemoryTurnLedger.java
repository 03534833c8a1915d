package dev.toolbus.executor;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.toolbus.protocol.OutboundEvent;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The in-memory {@link TurnLedger}: finished turns in a Caffeine cache that expires them after the
 * window (on the executor's clock) and bounds them by weight (each record weighs its estimated bytes,
 * and at least {@code maxBytes / maxEntries}); running turns in a map with one waiter sink each (as
 * many as turns run, which the executor and the gateway bound). Admission and completion of one key
 * are atomic (both run in the running map's lock of that key), so a repeat arriving while the owner
 * finishes either joins it or sees its record.
 */
final class MemoryTurnLedger implements TurnLedger {

    private record Key(String streamId, String turnId) {
    }

    private record Record(List<OutboundEvent> events, long weight) {
    }

    private static final long ENTRY_OVERHEAD = 200;

    private final Cache<Key, Record> done;
    private final ConcurrentHashMap<Key, Sinks.One<List<OutboundEvent>>> running = new ConcurrentHashMap<>();
    private final long maxRecordedBytes;

    MemoryTurnLedger(TurnLedgerSettings settings, LongSupplier nanoClock) {
        this.maxRecordedBytes = settings.maxRecordedBytes();
        long floor = Math.max(1, settings.maxBytes() / settings.maxEntries());
        this.done = Caffeine.newBuilder()
                .expireAfterWrite(settings.window())
                .maximumWeight(settings.maxBytes())
                .weigher((Key k, Record r) -> (int) Math.min(Integer.MAX_VALUE, Math.max(floor,
                        ENTRY_OVERHEAD + 2L * (k.streamId().length() + k.turnId().length()) + r.weight())))
                .ticker(nanoClock::getAsLong)
                .executor(Runnable::run)
                .build();
    }

    @Override
    public Mono<Admission> admit(String streamId, String turnId) {
        return Mono.fromSupplier(() -> {
            Admission[] out = new Admission[1];
            running.compute(new Key(streamId, turnId), (k, owner) -> {
                if (owner != null) {
                    out[0] = Admission.join(owner.asMono());
                    return owner;
                }
                Record r = done.getIfPresent(k);
                if (r != null) {
                    out[0] = Admission.replay(r.events());
                    return null;
                }
                out[0] = Admission.run();
                return Sinks.one();
            });
            return out[0];
        });
    }

    @Override
    public Mono<Void> complete(String streamId, String turnId, List<OutboundEvent> events) {
        return Mono.fromRunnable(() -> {
            List<OutboundEvent> all = List.copyOf(events);
            long weight = TurnWeights.of(all, maxRecordedBytes);
            Record record = weight <= maxRecordedBytes ? new Record(all, weight) : new Record(List.of(), 0);
            @SuppressWarnings("unchecked")
            Sinks.One<List<OutboundEvent>>[] owner = new Sinks.One[1];
            running.compute(new Key(streamId, turnId), (k, v) -> {
                done.put(k, record);
                owner[0] = v;
                return null;
            });
            if (owner[0] != null) {
                owner[0].tryEmitValue(all); // the joined turns get the events even when too large to keep
            }
        });
    }

    @Override
    public void release(String streamId, String turnId) {
        Sinks.One<List<OutboundEvent>> owner = running.remove(new Key(streamId, turnId));
        if (owner != null) {
            owner.tryEmitEmpty();
        }
    }

    /** Finished turns kept (tests). */
    long size() {
        done.cleanUp();
        return done.estimatedSize();
    }

    /** Their total weight (tests). */
    long weight() {
        return done.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
    }

    /** Turns running (tests). */
    int running() {
        return running.size();
    }
}
