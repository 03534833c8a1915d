package dev.toolbus.spi;

import reactor.core.publisher.Mono;

/**
 * Where token buckets live. The executor keeps an in-memory store for rules that are not shared
 * ({@code LimitRule.shared()}); a shared store (e.g. the Redis one in {@code toolbus-bus-redis})
 * holds the buckets of shared rules for every instance, so the limit holds for the deployment.
 *
 * <p>A take must be atomic: two instances taking the last token at once must not both get it.
 */
public interface RateLimitStore {

    /** The answer of a take that got its token (a store may return this very Mono). */
    Mono<Long> TAKEN = Mono.just(0L);

    /**
     * Takes one token from the bucket {@code key}, creating it full ({@code burst} tokens) when unknown.
     * The bucket refills continuously at {@code rate} tokens per {@code periodMs}, up to {@code burst}.
     *
     * @return {@code 0} when a token was taken; else how many milliseconds until one is there (at
     *     least 1); an error when the store cannot answer (the executor then refuses the call: fail
     *     closed). A store that answers at once should return {@code Mono.just} (read synchronously).
     */
    Mono<Long> take(String key, int rate, long periodMs, int burst);
}
