package dev.toolbus.bus.kafka;

import dev.toolbus.bus.tck.FaultProxy;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reads the Kafka request frames clients send through a {@link FaultProxy} (each a 4-byte size, then
 * the request's 2-byte API key) and, once armed, runs an action on the proxy's thread right before the
 * first request of one API is forwarded: for example, holding the broker's replies from the moment a
 * producer asks to commit its transaction ({@code EndTxn}), so the broker commits and the client hears
 * nothing.
 */
final class KafkaRequestWatch implements FaultProxy.RequestTap {

    /** The API key of {@code EndTxn}, the request that commits or aborts a transaction. */
    static final short END_TXN = 26;

    private final short apiKey;
    private final Runnable action;
    private final Map<Long, Frame> frames = new ConcurrentHashMap<>();
    private final AtomicBoolean armed = new AtomicBoolean();
    private final AtomicInteger fired = new AtomicInteger();

    KafkaRequestWatch(short apiKey, Runnable action) {
        this.apiKey = apiKey;
        this.action = action;
    }

    /** The action runs before the next such request. */
    void arm() {
        armed.set(true);
    }

    /** How many times the action ran. */
    int fired() {
        return fired.get();
    }

    @Override
    public void sent(long connection, byte[] chunk, int length) {
        Frame f = frames.computeIfAbsent(connection, c -> new Frame());
        int i = 0;
        while (i < length) {
            if (f.remaining > 0) {
                int skip = Math.min(f.remaining, length - i);
                f.remaining -= skip;
                i += skip;
                continue;
            }
            f.head[f.headLength++] = chunk[i++];
            if (f.headLength == f.head.length) {
                int size = (f.head[0] & 0xff) << 24 | (f.head[1] & 0xff) << 16 | (f.head[2] & 0xff) << 8 | (f.head[3] & 0xff);
                short key = (short) ((f.head[4] & 0xff) << 8 | (f.head[5] & 0xff));
                f.remaining = size - 2;
                f.headLength = 0;
                if (key == apiKey && armed.compareAndSet(true, false)) {
                    action.run();
                    fired.incrementAndGet();
                }
            }
        }
    }

    /** Where one connection is in its stream of frames (its pump thread only). */
    private static final class Frame {
        final byte[] head = new byte[6];
        int headLength;
        int remaining;
    }
}
