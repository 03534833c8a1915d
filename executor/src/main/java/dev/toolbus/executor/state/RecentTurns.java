package dev.toolbus.executor.state;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The finished turns of the in-memory ledger, oldest first: bounded by a total weight and a count,
 * each record kept for the window after it was written. Eviction is strictly by age, which is what a
 * ledger of repeats needs: a repeat comes soon after its turn (a redelivery, a client's retry), so the
 * newest records matter most. (A frequency-aware cache such as Caffeine's would, once full, keep old
 * records and turn away most new ones, whose frequency is never above the victims'.)
 *
 * <p>Reads take no lock; a write takes one short lock to append and to drop what is over a bound or
 * out of the window from the head.
 *
 * @param <K> the key
 * @param <V> the record
 */
final class RecentTurns<K, V> {

    private static final class Entry<K, V> {
        final K key;
        final V value;
        final long weight;
        final long writtenAt;
        /** Set (under the order's lock) once a newer record of the key replaced this one in the map. */
        boolean replaced;

        Entry(K key, V value, long weight, long writtenAt) {
            this.key = key;
            this.value = value;
            this.weight = weight;
            this.writtenAt = writtenAt;
        }
    }

    private final ConcurrentHashMap<K, Entry<K, V>> map = new ConcurrentHashMap<>();
    /** Entries in write order; an entry replaced in the map stays here until it reaches the head. */
    private final ArrayDeque<Entry<K, V>> order = new ArrayDeque<>();
    private final long windowNanos;
    private final long maxWeight;
    private final long maxEntries;
    private final LongSupplier nanoClock;
    private long weight; // guarded by order

    RecentTurns(long windowNanos, long maxWeight, long maxEntries, LongSupplier nanoClock) {
        this.windowNanos = windowNanos;
        this.maxWeight = maxWeight;
        this.maxEntries = maxEntries;
        this.nanoClock = nanoClock;
    }

    /** The record, or null when there is none or it is out of the window. */
    V get(K key) {
        Entry<K, V> e = map.get(key);
        if (e == null || nanoClock.getAsLong() - e.writtenAt >= windowNanos) {
            return null;
        }
        return e.value;
    }

    /** Keeps the record (replacing one of the same key), then drops the oldest while over a bound. */
    void put(K key, V value, long recordWeight) {
        long now = nanoClock.getAsLong();
        Entry<K, V> e = new Entry<>(key, value, recordWeight, now);
        synchronized (order) {
            Entry<K, V> old = map.put(key, e);
            if (old != null) {
                weight -= old.weight; // its place in the order is skipped when it reaches the head
                old.replaced = true;
            }
            order.add(e);
            weight += recordWeight;
            trim(now);
        }
    }

    /** Drops from the head; a replaced head leaves the order only (the map holds its successor). */
    private void trim(long now) {
        Entry<K, V> head;
        while ((head = order.peek()) != null
                && (head.replaced || weight > maxWeight || map.size() > maxEntries
                        || now - head.writtenAt >= windowNanos)) {
            order.poll();
            if (!head.replaced && map.remove(head.key, head)) {
                weight -= head.weight;
            }
        }
    }

    /** Records kept (out-of-window ones not yet dropped included). */
    long size() {
        return map.size();
    }

    /** Their total weight. */
    long weight() {
        synchronized (order) {
            return weight;
        }
    }
}
