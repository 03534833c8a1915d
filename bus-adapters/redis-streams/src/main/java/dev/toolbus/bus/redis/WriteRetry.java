package dev.toolbus.bus.redis;

import io.lettuce.core.RedisBusyException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisLoadingException;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * Retries a turn's result write that failed on the connection (reset, refused while Redis restarts,
 * timed out), with capped backoff, for as long as the bus is open. The write is held meanwhile, and with
 * it its conversation's lane: a later turn of the conversation cannot be written before it, so a broker
 * restart does not reorder a conversation's results. Only idempotent writes (those with a finished-turn
 * marker: a write that did reach Redis is not applied twice) are retried; an error Redis answered
 * (for example {@code WRONGTYPE} or {@code OOM}) is not retried, except {@code LOADING} and {@code BUSY}.
 */
final class WriteRetry {

    private static final Logger log = LoggerFactory.getLogger(WriteRetry.class);
    static final Duration FIRST_BACKOFF = Duration.ofMillis(50);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(1);

    private final BooleanSupplier open;
    private final String consumer;

    WriteRetry(BooleanSupplier open, String consumer) {
        this.open = open;
        this.consumer = consumer;
    }

    /** The write, retried on connection failures while the bus is open. */
    Mono<Void> apply(Mono<Void> write, String resultsKey) {
        return write.retryWhen(Retry.backoff(Long.MAX_VALUE, FIRST_BACKOFF).maxBackoff(MAX_BACKOFF)
                .filter(e -> retriable(e) && open.getAsBoolean())
                .doBeforeRetry(s -> {
                    if (s.totalRetriesInARow() == 0 || s.totalRetriesInARow() % 30 == 29) {
                        log.warn("redis bus {}: writing to {} failed ({}); retrying", consumer, resultsKey,
                                s.failure().toString());
                    }
                }));
    }

    static boolean retriable(Throwable e) {
        if (e instanceof RedisLoadingException || e instanceof RedisBusyException) {
            return true; // Redis is reading its data back after a restart, or runs a long script
        }
        return !(e instanceof RedisCommandExecutionException) && !(e instanceof IllegalArgumentException)
                && !(e instanceof Error);
    }
}
