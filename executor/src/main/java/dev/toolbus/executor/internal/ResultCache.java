package dev.toolbus.executor.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.toolbus.internal.weights.ResultWeights;
import dev.toolbus.tool.CacheScope;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The TTL cache of successful results, keyed by the tool's definition, canonical arguments (keys sorted)
 * and scope ({@link CacheKey}), and bounded by weight: each entry weighs its key plus its result's estimated size, and at least
 * {@code maxBytes / maxEntries}, so neither bound can be exceeded. Identical concurrent calls share one
 * run (single flight): the first caller runs the tool, the others wait for its future. Error results
 * and results above {@code maxResultBytes} are never kept: the flight is completed for its waiters and
 * then removed. Keys longer than the key cap are not built at all ({@link #key} answers null: the call
 * runs uncached).
 */
final class ResultCache {

    private final AsyncCache<CacheKey, Flight> cache;
    private final int maxKeyChars;
    private final long maxResultBytes;

    ResultCache(Duration ttl, long maxEntries, long maxBytes, int maxKeyChars, long maxResultBytes,
                LongSupplier nanoClock) {
        this.maxKeyChars = maxKeyChars;
        this.maxResultBytes = maxResultBytes;
        long floor = Math.max(1, maxBytes / maxEntries);
        this.cache = Caffeine.newBuilder()
                .expireAfterWrite(ttl)
                .maximumWeight(maxBytes)
                .weigher((CacheKey k, Flight f) -> (int) Math.min(Integer.MAX_VALUE,
                        Math.max(floor, ResultWeights.ENTRY_OVERHEAD + 2L * k.chars() + f.weight())))
                .ticker(nanoClock::getAsLong)
                .executor(Runnable::run)
                .buildAsync();
    }

    /** The cache key of a call, or {@code null} when it is longer than the key cap (then it is not cached). */
    CacheKey key(ToolDefinition def, JsonNode args, CacheScope scope, String streamId, String userId) {
        return CacheKeys.key(def, args, scope, streamId, userId, maxKeyChars);
    }

    /**
     * The key of a call whose raw argument text is already canonical, made before it is parsed, or
     * {@code null} (not canonical, or longer than the key cap).
     */
    CacheKey rawKey(ToolDefinition def, String json, CacheScope scope, String streamId, String userId) {
        return CacheKeys.rawKey(def, json, scope, streamId, userId, maxKeyChars);
    }

    /** The flight of an identical call (completed: a hit; pending: a follower), or {@code null}: then {@link #join}. */
    CompletableFuture<Flight> find(CacheKey key) {
        return cache.getIfPresent(key);
    }

    /**
     * The kept result of a call looked up by its raw argument text ({@link #rawKey}), or {@code null}:
     * only a finished, successful flight whose arguments read back from the key as the same nodes they
     * were checked as (so the call's own arguments would pass the same checks).
     */
    Flight hit(CacheKey rawKey) {
        CompletableFuture<Flight> f = cache.getIfPresent(rawKey);
        if (f == null || !f.isDone() || f.isCompletedExceptionally()) {
            return null;
        }
        Flight flight = f.getNow(null);
        return flight != null && flight.exact && flight.success() ? flight : null;
    }

    /**
     * Joins the flight of an identical call, or starts one.
     *
     * @return the existing flight (completed: a hit; pending: a follower), or {@code null} when the
     *     caller leads and must call {@link #land} exactly once
     */
    CompletableFuture<Flight> join(CacheKey key, CompletableFuture<Flight> mine) {
        return cache.asMap().putIfAbsent(key, mine);
    }

    /** Hands the flight to its waiting followers without keeping it (a result that depended on a user's answer). */
    void landUncached(CacheKey key, CompletableFuture<Flight> mine, Flight flight) {
        mine.complete(flight);
        cache.asMap().remove(key, mine);
    }

    /** Completes a led flight; error outcomes and oversized results are handed to waiters and then forgotten. */
    void land(CacheKey key, CompletableFuture<Flight> mine, Flight flight) {
        boolean keep = flight.success() && flight.weigh(maxResultBytes) <= maxResultBytes;
        flight.exact = key.exact();
        mine.complete(flight);
        if (!keep) {
            cache.asMap().remove(key, mine);
        }
    }

    /** Entries kept (for tests and metrics). */
    long size() {
        return cache.synchronous().estimatedSize();
    }

    /** The total weight kept, in estimated bytes (for tests and metrics). */
    long weight() {
        return cache.synchronous().policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
    }

    /** Drops everything. */
    void clear() {
        cache.synchronous().invalidateAll();
    }

    /**
     * A finished run shared through the cache: the result when the run produced one, else how the
     * leader's run ended (for waiters when it failed).
     */
    static final class Flight {
        private final ToolResult result;
        private final CallFailure outcome;
        private long weight = -1;
        /** Set before it is completed: its key's text parses back to the nodes it was checked as. */
        private boolean exact;

        Flight(ToolResult result, CallFailure outcome) {
            this.result = result;
            this.outcome = outcome;
        }

        ToolResult result() {
            return result;
        }

        CallFailure outcome() {
            return outcome;
        }

        boolean success() {
            return outcome == null && result != null && !result.isError();
        }

        /** The estimated result size, counted up to just past {@code limit}; remembered once known. */
        long weigh(long limit) {
            if (weight < 0) {
                weight = result == null ? 0 : ResultWeights.of(result, limit);
            }
            return weight;
        }

        long weight() {
            return Math.max(0, weight);
        }
    }
}
