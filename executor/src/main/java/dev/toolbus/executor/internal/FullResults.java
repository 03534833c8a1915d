package dev.toolbus.executor.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.toolbus.executor.settings.ResultLimits;
import java.util.function.LongSupplier;

/**
 * The full texts of cut results, for {@code read_tool_result}: keyed by stream and call id, so a call
 * can read only the results of its own conversation. Bounded by estimated bytes (2 per character plus
 * keys and overhead) and by entries (each entry weighs at least {@code maxBytes / maxEntries}); an
 * entry expires {@code ttl} after it was written; one text may take at most a quarter of the bound
 * (a larger one is not kept). In memory and per executor: lost on restart, not shared by instances.
 */
final class FullResults {

    /** Estimated bytes of an entry besides its strings. */
    static final long ENTRY_OVERHEAD = 96;

    private final Cache<Key, Text> texts;
    private final long maxEntryBytes;

    FullResults(ResultLimits limits, LongSupplier nanoClock) {
        long floor = Math.max(1, limits.storeMaxBytes() / limits.storeMaxEntries());
        this.maxEntryBytes = Math.max(1, limits.storeMaxBytes() / 4);
        this.texts = Caffeine.newBuilder()
                .expireAfterWrite(limits.storeTtl())
                .maximumWeight(limits.storeMaxBytes())
                .weigher((Key k, Text t) -> (int) Math.min(Integer.MAX_VALUE, Math.max(floor, weight(k, t.text()))))
                .ticker(nanoClock::getAsLong)
                .executor(Runnable::run)
                .build();
    }

    /**
     * Keeps a full text.
     *
     * @param limit the limit that cut it: the longest piece {@code read_tool_result} hands out at once
     * @return whether it is kept (false: larger than a quarter of the store's bound)
     */
    boolean put(String streamId, String toolCallId, String text, int limit) {
        Key k = new Key(streamId, toolCallId);
        if (weight(k, text) > maxEntryBytes) {
            texts.invalidate(k);
            return false;
        }
        texts.put(k, new Text(text, limit));
        return true;
    }

    /** The full text of that call on that stream, or {@code null} (never cut, expired, evicted, another stream's). */
    Text get(String streamId, String toolCallId) {
        return texts.getIfPresent(new Key(streamId, toolCallId));
    }

    /** Entries kept (tests). */
    long size() {
        texts.cleanUp();
        return texts.estimatedSize();
    }

    /** The total weight kept, in estimated bytes (tests). */
    long weight() {
        return texts.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
    }

    private static long weight(Key k, String text) {
        return ENTRY_OVERHEAD + 2L * (k.streamId().length() + k.toolCallId().length() + text.length());
    }

    private record Key(String streamId, String toolCallId) {
    }

    /** A kept text and the limit that cut it. */
    record Text(String text, int limit) {
    }
}
