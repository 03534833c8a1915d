package dev.toolbus.executor.state;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import dev.toolbus.spi.CutKey;
import dev.toolbus.spi.CutResults;
import dev.toolbus.spi.TurnStateSettings;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import reactor.core.publisher.Mono;

/**
 * The in-memory {@link CutResults}: texts in a Caffeine cache by key, expiring {@code cutResultsTtl}
 * after they were written, weighed in estimated bytes (2 per character plus keys and overhead; at least
 * {@code cutResultsMaxBytes / cutResultsMaxEntries}); one text may take at most a quarter of the bound.
 * Per stream at most {@code cutResultsPerStream} texts: putting one more drops the stream's oldest. The
 * per-stream order lives only while a stream has texts (removals keep it in step).
 */
final class MemoryCutResults implements CutResults {

    static final long ENTRY_OVERHEAD = 96;

    private final Cache<CutKey, Cut> texts;
    private final Map<String, ArrayDeque<CutKey>> byStream = new HashMap<>();
    private final long maxEntryBytes;
    private final int perStream;

    MemoryCutResults(TurnStateSettings s, LongSupplier nanoClock) {
        long floor = Math.max(1, s.cutResultsMaxBytes() / s.cutResultsMaxEntries());
        this.maxEntryBytes = Math.max(1, s.cutResultsMaxBytes() / 4);
        this.perStream = s.cutResultsPerStream();
        this.texts = Caffeine.newBuilder()
                .expireAfterWrite(s.cutResultsTtl())
                .maximumWeight(s.cutResultsMaxBytes())
                .weigher((CutKey k, Cut c) -> (int) Math.min(Integer.MAX_VALUE, Math.max(floor, weight(k, c.text()))))
                .removalListener((CutKey k, Cut c, RemovalCause cause) -> {
                    if (k != null && cause != RemovalCause.REPLACED) {
                        forget(k);
                    }
                })
                .ticker(nanoClock::getAsLong)
                .executor(Runnable::run)
                .build();
    }

    @Override
    public Mono<Boolean> put(CutKey key, String text, int limit) {
        return Mono.fromSupplier(() -> {
            if (weight(key, text) > maxEntryBytes) {
                texts.invalidate(key);
                return false;
            }
            CutKey oldest = null;
            synchronized (byStream) {
                ArrayDeque<CutKey> q = byStream.computeIfAbsent(key.streamId(), s -> new ArrayDeque<>(4));
                q.remove(key);
                q.add(key);
                if (q.size() > perStream) {
                    oldest = q.poll();
                }
            }
            texts.put(key, new Cut(text, limit));
            if (oldest != null) {
                texts.invalidate(oldest);
            }
            return true;
        });
    }

    @Override
    public Mono<Cut> get(CutKey key) {
        return Mono.fromSupplier(() -> texts.getIfPresent(key));
    }

    private void forget(CutKey k) {
        synchronized (byStream) {
            ArrayDeque<CutKey> q = byStream.get(k.streamId());
            if (q != null && q.remove(k) && q.isEmpty()) {
                byStream.remove(k.streamId());
            }
        }
    }

    private static long weight(CutKey k, String text) {
        return ENTRY_OVERHEAD + 2L * (k.principal().key().length() + k.streamId().length() + k.toolCallId().length()
                + text.length());
    }

    /** Texts kept. */
    long size() {
        texts.cleanUp();
        return texts.estimatedSize();
    }

    /** Their estimated bytes. */
    long bytes() {
        texts.cleanUp();
        return texts.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
    }

    /** Streams with texts (tests: the per-stream order is dropped with the last text). */
    int streams() {
        synchronized (byStream) {
            return byStream.size();
        }
    }
}
