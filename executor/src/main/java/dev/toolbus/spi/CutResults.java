package dev.toolbus.spi;

import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * The full texts of results that were cut for being longer than their limit, for
 * {@code read_tool_result}: kept under {@link CutKey} (principal, stream, call), so only the principal
 * that received the cut reads it back, from any instance that shares the state.
 *
 * <p>Contract (the turn-state TCK checks it): a text is found by exactly its key until the store's
 * TTL passes; a text above the per-text bound is not kept ({@code put} answers {@code false}); texts
 * are bounded per stream in count (the stream's oldest go first) and in total bytes (the oldest go
 * first). Counted in {@code toolbus.state.records} and {@code toolbus.state.bytes} with
 * {@code facet=cut_results}.
 */
public interface CutResults {

    /**
     * Keeps a full text.
     *
     * @param limit the limit that cut it: the longest piece {@code read_tool_result} hands out at once
     * @return whether it is kept ({@code false}: above the per-text bound)
     */
    Mono<Boolean> put(CutKey key, String text, int limit);

    /** The kept text of the key; empty when none (never cut, expired, evicted, or another principal's). */
    Mono<Cut> get(CutKey key);

    /**
     * A kept text and the limit that cut it.
     *
     * @param text the full text
     * @param limit the longest piece handed out at once
     */
    record Cut(String text, int limit) {
        /** Checks the values. */
        public Cut {
            Objects.requireNonNull(text, "text");
            Checks.requireRange(limit, 1, Integer.MAX_VALUE, "limit");
        }
    }
}
