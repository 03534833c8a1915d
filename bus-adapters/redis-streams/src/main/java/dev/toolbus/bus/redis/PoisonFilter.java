package dev.toolbus.bus.redis;

import dev.toolbus.protocol.EventIdPeek;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The entries the bus settles itself because they cannot be run: a redelivered entry delivered more
 * than {@code maxDeliveries} times (a poison turn, which kills or stalls every instance that takes it),
 * and an entry without an {@code event} field or above {@code maxEventBytes}. Each goes to the
 * dead-letter stream with its reason, an {@code error} event goes to its conversation when its
 * {@code stream_id} can be read, and it is acknowledged; a failure on the way leaves it pending.
 */
final class PoisonFilter {

    private static final Logger log = LoggerFactory.getLogger(PoisonFilter.class);

    private final RedisStreamsBus bus;
    private final RedisStreamsConfig config;
    private final RedisAsyncCommands<String, byte[]> commands;

    PoisonFilter(RedisStreamsBus bus, RedisAsyncCommands<String, byte[]> commands) {
        this.bus = bus;
        this.config = bus.cfg();
        this.commands = commands;
    }

    /**
     * Dead-letters the entries delivered more than {@code maxDeliveries} times and returns the others,
     * in order. Delivery counts come from {@code XPENDING}; when they cannot be read, every entry is
     * returned (run again rather than lost). With a poison entry the answer waits until its {@code error}
     * is written (or its settling failed, or {@link #SETTLE_WAIT_SECONDS} passed): the reader reads on
     * only then, so a later turn of the same conversation never answers before it.
     */
    CompletableFuture<List<StreamMessage<String, byte[]>>> withoutPoison(List<StreamMessage<String, byte[]>> live) {
        List<CompletableFuture<Long>> counts = new ArrayList<>(live.size());
        for (StreamMessage<String, byte[]> m : live) {
            counts.add(commands.xpending(config.callsStream(), config.group(), Range.create(m.getId(), m.getId()),
                            Limit.from(1))
                    .toCompletableFuture()
                    .thenApply(p -> p.isEmpty() ? 0L : p.get(0).getRedeliveryCount()));
        }
        return CompletableFuture.allOf(counts.toArray(CompletableFuture[]::new)).handle((v, error) -> {
            if (error != null) {
                log.warn("redis bus {}: delivery counts unreadable, running {} redelivered entries: {}",
                        config.consumer(), live.size(), error.toString());
                return CompletableFuture.completedFuture(live);
            }
            List<StreamMessage<String, byte[]>> run = new ArrayList<>(live.size());
            List<CompletableFuture<Void>> settling = new ArrayList<>(0);
            for (int i = 0; i < live.size(); i++) {
                long deliveries = counts.get(i).join();
                if (deliveries > config.maxDeliveries()) {
                    settling.add(poison(live.get(i), deliveries));
                } else {
                    run.add(live.get(i));
                }
            }
            if (settling.isEmpty()) {
                return CompletableFuture.completedFuture(run);
            }
            return CompletableFuture.allOf(settling.toArray(CompletableFuture[]::new))
                    .completeOnTimeout(null, SETTLE_WAIT_SECONDS, TimeUnit.SECONDS)
                    .handle((x, e) -> run);
        }).thenCompose(f -> f);
    }

    /** How long the reader waits at most for a poison entry's settling before it reads on. */
    static final long SETTLE_WAIT_SECONDS = 10;

    private CompletableFuture<Void> poison(StreamMessage<String, byte[]> m, long deliveries) {
        byte[] payload = m.getBody().get(RedisStreamsBus.EVENT_FIELD);
        EventIdPeek keys = EventIdPeek.of(payload);
        String reason = "delivered " + deliveries + " times without being settled (maxDeliveries "
                + config.maxDeliveries() + ")";
        log.warn("redis bus {}: entry {} is a poison turn, dead-lettered: {}", config.consumer(), m.getId(), reason);
        Mono<Void> answer = Mono.empty();
        if (keys.streamId() != null) {
            answer = bus.publish(List.of(new ErrorEvent(keys.streamId(), keys.turnId(), ErrorCode.REJECTED,
                    "turn " + (keys.turnId() != null ? keys.turnId() + " " : "") + "was " + reason
                            + "; it was moved to the dead-letter stream")));
        }
        return settle(bus.writer().deadLetter(payload, reason, m.getId(), config.consumer(), deliveries), answer,
                m.getId(), "dead-lettering poison entry");
    }

    /**
     * Dead-letters an entry that is not handed over: no {@code event} field, or one above
     * {@code maxEventBytes} (only its first {@value EventIdPeek#SCAN_LIMIT} bytes are kept).
     */
    void reject(StreamMessage<String, byte[]> m, byte[] payload) {
        String reason = payload == null
                ? "entry has no '" + RedisStreamsBus.EVENT_FIELD + "' field"
                : "event of " + payload.length + " bytes is above the " + config.maxEventBytes() + "-byte limit";
        EventIdPeek keys = EventIdPeek.of(payload);
        log.warn("redis bus {}: entry {} dead-lettered: {}", config.consumer(), m.getId(), reason);
        Mono<Void> answer = Mono.empty();
        if (keys.streamId() != null) {
            answer = bus.publish(List.of(new ErrorEvent(keys.streamId(), keys.turnId(), ErrorCode.BAD_EVENT, reason)));
        }
        byte[] kept = payload == null ? new byte[0]
                : Arrays.copyOf(payload, Math.min(payload.length, EventIdPeek.SCAN_LIMIT));
        settle(bus.writer().deadLetter(kept, reason, m.getId(), config.consumer()), answer, m.getId(), "dead-lettering");
    }

    /**
     * The dead letter, then the answer to its conversation, then the acknowledgement; completes when
     * done or failed (a failure is logged and leaves the entry pending).
     */
    private CompletableFuture<Void> settle(Mono<Void> deadLetter, Mono<Void> answer, String id, String what) {
        return deadLetter.then(answer)
                .then(Mono.fromCompletionStage(() -> commands.xack(config.callsStream(), config.group(), id)))
                .then()
                .onErrorResume(e -> {
                    log.warn("redis bus {}: {} {} failed (it stays pending): {}", config.consumer(), what, id,
                            e.toString());
                    return Mono.empty();
                })
                .toFuture();
    }
}
