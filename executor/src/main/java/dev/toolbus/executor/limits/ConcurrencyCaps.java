package dev.toolbus.executor.limits;

import dev.toolbus.internal.Trampoline;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Concurrency caps by key (a rule, or a rule and a user, stream or agent): permits in use and a FIFO
 * of waiters. A key exists only while a permit is held or a call waits, so the map is bounded by the
 * calls in flight. Each change is atomic per key ({@link ConcurrentHashMap#compute}); grants run after it,
 * through the {@link Trampoline} so a chain of releases never deepens the stack.
 */
final class ConcurrencyCaps {

    /** A call waiting for a permit. */
    interface Waiter {
        /** The permit is now held for this waiter (it must be released). */
        void granted();
    }

    enum Outcome { ACQUIRED, QUEUED, FULL }

    private static final class Cap {
        int limit;
        int inUse;
        final ArrayDeque<Waiter> waiting = new ArrayDeque<>(2);
    }

    private final ConcurrentHashMap<String, Cap> caps = new ConcurrentHashMap<>();

    /**
     * Takes a permit now, or queues the waiter (at most {@code maxWaiting} per key; beyond that
     * {@link Outcome#FULL}, nothing queued).
     */
    Outcome acquire(String key, int limit, Waiter w, int maxWaiting) {
        Outcome[] out = new Outcome[1];
        caps.compute(key, (k, c) -> {
            if (c == null) {
                c = new Cap();
            }
            c.limit = limit;
            if (c.inUse < limit && c.waiting.isEmpty()) {
                c.inUse++;
                out[0] = Outcome.ACQUIRED;
            } else if (c.waiting.size() >= maxWaiting) {
                out[0] = Outcome.FULL;
            } else {
                c.waiting.add(w);
                out[0] = Outcome.QUEUED;
            }
            return c.inUse == 0 && c.waiting.isEmpty() ? null : c;
        });
        return out[0];
    }

    /** Releases a permit of the key; the next waiters get it. */
    void release(String key) {
        List<Waiter> grants = new ArrayList<>(1);
        caps.computeIfPresent(key, (k, c) -> {
            if (c.inUse > 0) {
                c.inUse--;
            }
            admit(c, grants);
            return c.inUse == 0 && c.waiting.isEmpty() ? null : c;
        });
        for (Waiter w : grants) {
            Trampoline.run(w::granted);
        }
    }

    /** Removes a waiter that no longer waits. @return false when it was not waiting (granted already). */
    boolean withdraw(String key, Waiter w) {
        boolean[] removed = new boolean[1];
        List<Waiter> grants = new ArrayList<>(0);
        caps.computeIfPresent(key, (k, c) -> {
            removed[0] = c.waiting.remove(w);
            admit(c, grants);
            return c.inUse == 0 && c.waiting.isEmpty() ? null : c;
        });
        for (Waiter g : grants) {
            Trampoline.run(g::granted);
        }
        return removed[0];
    }

    private static void admit(Cap c, List<Waiter> grants) {
        while (c.inUse < c.limit && !c.waiting.isEmpty()) {
            c.inUse++;
            grants.add(c.waiting.poll());
        }
    }

    /** Keys held or waited for now (tests: bounded by the calls in flight). */
    int keys() {
        return caps.size();
    }

    /** Permits in use for a key (tests). */
    int inUse(String key) {
        Cap c = caps.get(key);
        return c == null ? 0 : c.inUse;
    }
}
