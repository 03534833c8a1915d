package dev.toolbus.executor;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.toolbus.tool.CacheScope;
import dev.toolbus.tool.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The TTL cache of successful results, keyed by tool, canonical arguments (keys sorted) and scope.
 * Identical concurrent calls share one run (single flight): the first caller runs the tool, the others
 * wait for its future. Error results are never kept: the flight is completed for its waiters and then
 * removed.
 */
final class ResultCache {

    private final AsyncCache<String, Flight> cache;

    ResultCache(Duration ttl, long maxEntries, LongSupplier nanoClock) {
        this.cache = Caffeine.newBuilder()
                .expireAfterWrite(ttl)
                .maximumSize(maxEntries)
                .ticker(nanoClock::getAsLong)
                .executor(Runnable::run)
                .buildAsync();
    }

    /** The cache key of a call. */
    static String key(String tool, JsonNode args, CacheScope scope, String streamId, String userId) {
        StringBuilder sb = new StringBuilder(64).append(tool).append('\u0000');
        if (scope == CacheScope.STREAM_USER) {
            sb.append(streamId).append('\u0000').append(userId);
        }
        sb.append('\u0000');
        canonical(args, sb);
        return sb.toString();
    }

    /**
     * Joins the flight of an identical call, or starts one.
     *
     * @return the existing flight (completed: a hit; pending: a follower), or {@code null} when the
     *     caller leads and must call {@link #land} exactly once
     */
    CompletableFuture<Flight> join(String key, CompletableFuture<Flight> mine) {
        return cache.asMap().putIfAbsent(key, mine);
    }

    /** Completes a led flight; error outcomes are handed to waiters and then forgotten. */
    /** Hands the flight to its waiting followers without keeping it (a result that depended on a user's answer). */
    void landUncached(String key, CompletableFuture<Flight> mine, Flight flight) {
        mine.complete(flight);
        cache.asMap().remove(key, mine);
    }

    void land(String key, CompletableFuture<Flight> mine, Flight flight) {
        mine.complete(flight);
        if (!flight.success()) {
            cache.asMap().remove(key, mine);
        }
    }

    /** Entries kept (for tests and metrics). */
    long size() {
        return cache.synchronous().estimatedSize();
    }

    /** Drops everything. */
    void clear() {
        cache.synchronous().invalidateAll();
    }

    /** Appends JSON with object keys sorted, so key order in the model's arguments does not matter. */
    static void canonical(JsonNode n, StringBuilder sb) {
        if (n.isObject()) {
            List<String> names = new ArrayList<>(n.size());
            Iterator<String> it = n.fieldNames();
            while (it.hasNext()) {
                names.add(it.next());
            }
            Collections.sort(names);
            sb.append('{');
            for (int i = 0; i < names.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                quote(names.get(i), sb);
                sb.append(':');
                canonical(n.get(names.get(i)), sb);
            }
            sb.append('}');
        } else if (n.isArray()) {
            sb.append('[');
            for (int i = 0; i < n.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                canonical(n.get(i), sb);
            }
            sb.append(']');
        } else if (n.isTextual()) {
            quote(n.textValue(), sb);
        } else if (n.isIntegralNumber() && n.canConvertToLong()) {
            sb.append(n.longValue());
        } else if (n.isNumber()) {
            sb.append(n.decimalValue().stripTrailingZeros().toPlainString());
        } else if (n.isBoolean()) {
            sb.append(n.booleanValue());
        } else if (n.isNull()) {
            sb.append("null");
        } else {
            sb.append(n.toString());
        }
    }

    private static void quote(String s, StringBuilder sb) {
        sb.append('"');
        JSON_STRINGS.quoteAsString(s, sb);
        sb.append('"');
    }

    private static final com.fasterxml.jackson.core.io.JsonStringEncoder JSON_STRINGS =
            com.fasterxml.jackson.core.io.JsonStringEncoder.getInstance();

    /**
     * A finished run shared through the cache.
     *
     * @param result the result when the run produced one
     * @param outcome how the leader's run ended (for waiters when it failed)
     */
    record Flight(ToolResult result, CallFailure outcome) {
        boolean success() {
            return outcome == null && result != null && !result.isError();
        }
    }
}
