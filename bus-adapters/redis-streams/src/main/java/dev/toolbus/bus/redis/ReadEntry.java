package dev.toolbus.bus.redis;

import dev.toolbus.protocol.EventIdPeek;
import io.lettuce.core.StreamMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * One entry read from the calls stream with what {@link EventIdPeek} reads of its event, peeked at most
 * once however many steps ask (the finished-turn check, the control hand-over, the relay).
 */
final class ReadEntry {

    final StreamMessage<String, byte[]> message;
    private EventIdPeek peek;
    /**
     * The turn its read admitted ({@link RedisTurnLedger#admitRead}), until the executor's admission takes
     * it: the entry hands it on, and settling an entry whose turn was never admitted gives the claim back.
     */
    RedisTurnLedger.Early early;

    ReadEntry(StreamMessage<String, byte[]> message) {
        this.message = message;
    }

    static List<ReadEntry> of(List<StreamMessage<String, byte[]>> messages) {
        List<ReadEntry> out = new ArrayList<>(messages.size());
        for (StreamMessage<String, byte[]> m : messages) {
            out.add(new ReadEntry(m));
        }
        return out;
    }

    String id() {
        return message.getId();
    }

    /** The entry's event, or null when it has none. */
    byte[] payload() {
        return message.getBody() == null ? null : message.getBody().get(RedisStreamsBus.EVENT_FIELD);
    }

    /** The ids of the entry's event, read on the first call (one thread at a time handles an entry). */
    EventIdPeek peek() {
        EventIdPeek p = peek;
        if (p == null) {
            p = EventIdPeek.of(payload());
            peek = p;
        }
        return p;
    }
}
