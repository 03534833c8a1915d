package dev.toolbus.bus.redis;

import dev.toolbus.spi.BusMessage;
import dev.toolbus.protocol.EventIdPeek;
import dev.toolbus.protocol.ControlIds;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Relays control events between the instances of a group (Redis pub/sub). The consumer group gives a
 * control event to any instance; the relay makes it reach the one running its turn:
 * <ul>
 *   <li>a {@code cancel} runs here and is published on {@code controlChannel} to every other instance
 *       (a cancel that matches nothing is a no-op there);</li>
 *   <li>an {@code approval_response} or {@code input_response} is published on
 *       {@code controlChannel:<owner>}, the owner being the instance named in its id; when no instance
 *       listens there (the owner is gone, or the id is forged), or the id is this instance's or names
 *       none, it runs here, so exactly one executor answers and an unknown id gets one
 *       {@code UNKNOWN_REQUEST}.</li>
 *   <li>an answer to a derived id ({@code ap-}/{@code in-} and 16 hex digits: it names no instance)
 *       runs here: the executor records it in the turn state ({@link RedisControlRequests}), whose script
 *       announces it on {@code <state namespace>answered}, and the owner of the turn, on any instance,
 *       learns of it there.</li>
 * </ul>
 * Events received from other instances wait in a queue bounded by {@link #MAX_QUEUED} entries and
 * {@link #MAX_QUEUED_BYTES} bytes (beyond it they are dropped and counted). Lettuce re-subscribes
 * after a reconnect; pub/sub is at most once, so an instance disconnected at that moment misses it.
 */
final class ControlRelay implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ControlRelay.class);
    static final int MAX_QUEUED = 1_024;
    static final long MAX_QUEUED_BYTES = 4L << 20;
    private static final byte SEPARATOR = '\n';

    private final RedisStreamsConfig config;
    private final RedisAsyncCommands<String, byte[]> commands;
    private final String me;
    private final StatefulRedisPubSubConnection<String, byte[]> pubsub;
    private final ConcurrentLinkedQueue<BusMessage> received = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong queuedBytes = new AtomicLong();
    final AtomicLong dropped = new AtomicLong();
    private volatile Runnable onReceived = () -> { };

    ControlRelay(RedisClient client, RedisAsyncCommands<String, byte[]> commands, RedisStreamsConfig config) {
        this.config = config;
        this.commands = commands;
        this.me = config.instanceId();
        this.pubsub = client.connectPubSub(RedisStreamsBus.CODEC);
        this.pubsub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, byte[] message) {
                onMessage(message);
            }
        });
        this.pubsub.sync().subscribe(config.controlChannel(), config.controlChannel(me));
    }

    /** Called when a control event from another instance is queued. */
    void onReceived(Runnable r) {
        this.onReceived = r;
    }

    /** The next control event from another instance, or null. */
    BusMessage poll() {
        BusMessage m = received.poll();
        if (m != null) {
            queued.decrementAndGet();
            queuedBytes.addAndGet(-m.payload().length);
        }
        return m;
    }

    boolean isEmpty() {
        return received.isEmpty();
    }

    /**
     * Routes a control event read from the group. Completes with true when this instance must run it
     * (its entry is handed to the executor), false when another instance took it (the entry is then
     * acknowledged without running here). {@code peek} is what the reader read of the payload.
     */
    CompletableFuture<Boolean> route(byte[] payload, EventIdPeek peek) {
        if (peek.isCancel()) {
            commands.publish(config.controlChannel(), frame(payload)).exceptionally(e -> {
                log.warn("redis bus {}: cancel not shared with other instances: {}", config.consumer(), e.toString());
                return 0L;
            });
            return CompletableFuture.completedFuture(true);
        }
        if (!peek.isAnswer()) {
            return CompletableFuture.completedFuture(true);
        }
        String owner = ControlIds.instanceOf(peek.requestId());
        if (owner == null || owner.equals(me)) {
            return CompletableFuture.completedFuture(true);
        }
        return commands.publish(config.controlChannel(owner), frame(payload)).toCompletableFuture()
                .handle((listeners, e) -> {
                    if (e != null) {
                        log.warn("redis bus {}: answer for {} not passed on, answering here: {}", config.consumer(),
                                owner, e.toString());
                        return true;
                    }
                    return listeners == 0; // nobody is instance <owner>: answered here (UNKNOWN_REQUEST)
                });
    }

    private byte[] frame(byte[] payload) {
        byte[] origin = config.consumer().getBytes(StandardCharsets.UTF_8);
        byte[] out = Arrays.copyOf(origin, origin.length + 1 + payload.length);
        out[origin.length] = SEPARATOR;
        System.arraycopy(payload, 0, out, origin.length + 1, payload.length);
        return out;
    }

    private void onMessage(byte[] message) {
        int sep = -1;
        for (int i = 0; i < message.length && i < 1024; i++) {
            if (message[i] == SEPARATOR) {
                sep = i;
                break;
            }
        }
        if (sep < 0) {
            return; // not ours
        }
        String origin = new String(message, 0, sep, StandardCharsets.UTF_8);
        if (origin.equals(config.consumer())) {
            return; // our own broadcast: it ran here already
        }
        byte[] payload = Arrays.copyOfRange(message, sep + 1, message.length);
        if (payload.length > config.maxEventBytes() || queued.get() >= MAX_QUEUED
                || queuedBytes.get() + payload.length > MAX_QUEUED_BYTES) {
            long n = dropped.incrementAndGet();
            log.warn("redis bus {}: control event from {} dropped (queue full or too large; {} dropped so far)",
                    config.consumer(), origin, n);
            return;
        }
        queued.incrementAndGet();
        queuedBytes.addAndGet(payload.length);
        received.add(new Shared(payload, origin));
        onReceived.run();
    }

    @Override
    public void close() {
        pubsub.close();
    }

    /** A control event another instance read: nothing to acknowledge. */
    private static final class Shared implements BusMessage {
        private final byte[] payload;
        private final String origin;

        Shared(byte[] payload, String origin) {
            this.payload = payload;
            this.origin = origin;
        }

        @Override
        public byte[] payload() {
            return payload;
        }

        @Override
        public Mono<Void> ack() {
            return Mono.empty();
        }

        @Override
        public Mono<Void> deadLetter(String reason) {
            return Mono.empty(); // the instance that read it from the stream settles the entry
        }

        @Override
        public String id() {
            return "control-from-" + origin;
        }
    }
}
