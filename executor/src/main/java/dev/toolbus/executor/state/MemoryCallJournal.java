package dev.toolbus.executor.state;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.spi.CallJournal;
import dev.toolbus.spi.CallKey;
import dev.toolbus.spi.TurnStateSettings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import reactor.core.publisher.Mono;

/**
 * The in-memory {@link CallJournal}: a Caffeine cache of records by call key, expiring {@code recordTtl}
 * after their last write on the given clock, weighed in estimated bytes (at least
 * {@code journalMaxBytes / journalMaxEntries} each). A {@code begin} that would pass the bound fails
 * instead of letting Caffeine evict a started call's record. Transitions run under one lock (one
 * process; each is a few map operations).
 */
final class MemoryCallJournal implements CallJournal {

    private static final long ENTRY_OVERHEAD = 300;

    /** A call's record: started (events {@code null}) or finished. */
    private record Record(List<OutboundEvent> events, long weight) {
    }

    private final Cache<CallKey, Record> records;
    private final long maxBytes;
    private final long floor;
    private final long maxRecordedBytes;

    MemoryCallJournal(TurnStateSettings s, LongSupplier nanoClock) {
        this.maxBytes = s.journalMaxBytes();
        this.floor = Math.max(1, s.journalMaxBytes() / s.journalMaxEntries());
        this.maxRecordedBytes = s.maxRecordedBytes();
        this.records = Caffeine.newBuilder()
                .expireAfterWrite(s.recordTtl())
                .maximumWeight(s.journalMaxBytes())
                .weigher((CallKey k, Record r) -> (int) Math.min(Integer.MAX_VALUE, r.weight()))
                .ticker(nanoClock::getAsLong)
                .executor(Runnable::run)
                .build();
    }

    @Override
    public Mono<Map<CallKey, Entry>> begin(List<CallKey> keys) {
        return Mono.fromCallable(() -> {
            Map<CallKey, Entry> out = new LinkedHashMap<>(keys.size() * 2);
            synchronized (this) {
                long adding = 0;
                for (CallKey k : keys) {
                    Record r = records.getIfPresent(k);
                    if (r != null) {
                        out.put(k, r.events() == null ? Entry.started() : Entry.finished(r.events()));
                    } else if (out.putIfAbsent(k, Entry.fresh()) == null) {
                        adding += weight(k, 0);
                    }
                }
                if (adding > 0 && weightedSize() + adding > maxBytes) {
                    throw new IllegalStateException("the call journal is full (" + weightedSize() + " of " + maxBytes
                            + " estimated bytes): no call that is not retry-safe may start until records expire");
                }
                for (Map.Entry<CallKey, Entry> e : out.entrySet()) {
                    if (e.getValue().isNew()) {
                        records.put(e.getKey(), new Record(null, weight(e.getKey(), 0)));
                    }
                }
            }
            return out;
        });
    }

    @Override
    public Mono<Void> finish(Map<CallKey, List<OutboundEvent>> finished) {
        return Mono.fromRunnable(() -> {
            synchronized (this) {
                for (Map.Entry<CallKey, List<OutboundEvent>> e : finished.entrySet()) {
                    Record r = records.getIfPresent(e.getKey());
                    if (r != null && r.events() != null) {
                        continue; // the first finish wins
                    }
                    List<OutboundEvent> events = List.copyOf(e.getValue());
                    long w = TurnWeights.of(events, maxRecordedBytes);
                    if (w > maxRecordedBytes) {
                        events = List.of();
                        w = 0;
                    }
                    records.put(e.getKey(), new Record(events, weight(e.getKey(), w)));
                }
            }
        });
    }

    private long weight(CallKey k, long events) {
        return Math.max(floor, ENTRY_OVERHEAD + 2L * (k.principal().key().length() + k.streamId().length()
                + k.turnId().length() + k.toolCallId().length()) + events);
    }

    private long weightedSize() {
        return records.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
    }

    /** Records kept. */
    long size() {
        records.cleanUp();
        return records.estimatedSize();
    }

    /** Their estimated bytes. */
    long bytes() {
        records.cleanUp();
        return weightedSize();
    }
}
