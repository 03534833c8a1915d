package dev.toolbus.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Predicate;

/** A bounded log of the most recent calls (lock-free ring). */
public final class CallLog {

    private final AtomicReferenceArray<CallRecord> ring;
    private final AtomicLong next = new AtomicLong();

    private CallLog(int capacity) {
        this.ring = new AtomicReferenceArray<>(capacity);
    }

    /**
     * A log keeping the last {@code capacity} calls.
     *
     * @param capacity at least 1
     */
    public static CallLog create(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1");
        }
        return new CallLog(capacity);
    }

    /** How many records it keeps. */
    public int capacity() {
        return ring.length();
    }

    /** Adds a record, evicting the oldest when full. */
    public void add(CallRecord record) {
        long i = next.getAndIncrement();
        ring.set((int) (i % ring.length()), record);
    }

    /** The kept records matching the filter, newest first, at most {@code limit}. */
    public List<CallRecord> recent(Predicate<CallRecord> filter, int limit) {
        long end = next.get();
        long start = Math.max(0, end - ring.length());
        List<CallRecord> out = new ArrayList<>(Math.min(limit, ring.length()));
        for (long i = end - 1; i >= start && out.size() < limit; i--) {
            CallRecord r = ring.get((int) (i % ring.length()));
            if (r != null && filter.test(r)) {
                out.add(r);
            }
        }
        return out;
    }

    /** The kept records, newest first. */
    public List<CallRecord> recent() {
        return recent(r -> true, ring.length());
    }
}
