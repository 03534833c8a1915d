package dev.toolbus.bus.kafka;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The turns this instance was still running when their partition moved to another instance (revoked or
 * lost), newest {@link #MAX_TURNS} kept. When such a turn finishes here, its events must not be written:
 * the partition's new owner runs the turn again and writes them with the record's offset, so writing
 * them here too, with no offset to go with them, would show the turn twice to a {@code read_committed}
 * reader.
 */
final class MovedTurns {

    /** Turn keys remembered at most (a key is a stream id and a turn id, each bounded by the codec). */
    static final int MAX_TURNS = 4096;

    private final Map<String, Boolean> keys = new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > MAX_TURNS;
        }
    };

    synchronized void add(String turnKey) {
        keys.put(turnKey, Boolean.TRUE);
    }

    /** Whether the turn moved away; forgets it (its one final publish is the one asked about). */
    synchronized boolean take(String turnKey) {
        return keys.remove(turnKey) != null;
    }

    synchronized int size() {
        return keys.size();
    }
}
