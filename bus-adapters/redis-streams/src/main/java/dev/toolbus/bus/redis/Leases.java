package dev.toolbus.bus.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Entries handed to the executor (or held while the control relay decides) and not yet settled: id →
 * {delivered at, lease last renewed at}, in {@code nanoTime}. The claim loop renews a lease at most
 * {@link #RENEWALS} × {@code claimMinIdle} after delivery, so an entry the executor never settles (its
 * publish failed) is eventually delivered again. Bounded by what was delivered, which the executor's
 * demand bounds.
 */
final class Leases {

    /** How many {@code claimMinIdle} periods a delivered entry is kept from other instances at most. */
    static final int RENEWALS = 10;

    private final Map<String, long[]> held = new ConcurrentHashMap<>();
    private final LongSupplier nanoTime;

    Leases(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** The entry is delivered now. */
    void take(String id) {
        long now = nanoTime.getAsLong();
        held.put(id, new long[] {now, now});
    }

    void release(String id) {
        held.remove(id);
    }

    boolean holds(String id) {
        return held.containsKey(id);
    }

    int size() {
        return held.size();
    }

    boolean isEmpty() {
        return held.isEmpty();
    }

    /** What a renewal round has to do. */
    record Round(List<String> renew, List<String> givenUp, long now) {
    }

    /**
     * The leases due for renewal (last renewed at least {@code renewAfterNanos} ago); leases older than
     * {@code giveUpAfterNanos} are dropped and listed as given up.
     */
    Round due(long renewAfterNanos, long giveUpAfterNanos) {
        long now = nanoTime.getAsLong();
        List<String> renew = new ArrayList<>();
        List<String> givenUp = new ArrayList<>();
        held.forEach((id, times) -> {
            if (now - times[0] >= giveUpAfterNanos) {
                held.remove(id);
                givenUp.add(id);
            } else if (now - times[1] >= renewAfterNanos) {
                renew.add(id);
            }
        });
        return new Round(renew, givenUp, now);
    }

    /** These leases were renewed at {@code at} (those settled meanwhile stay gone). */
    void renewed(List<String> ids, long at) {
        ids.forEach(id -> held.computeIfPresent(id, (k, v) -> new long[] {v[0], at}));
    }
}
