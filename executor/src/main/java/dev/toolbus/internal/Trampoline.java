package dev.toolbus.internal;

import java.util.ArrayDeque;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks iteratively instead of recursively when a task schedules more work on the same thread.
 * Not API: shared by the executor's packages, may change without notice.
 */
public final class Trampoline {

    private static final ThreadLocal<Trampoline> CURRENT = ThreadLocal.withInitial(Trampoline::new);

    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    private boolean running;

    private Trampoline() {
    }

    /** Runs the task now, or after the task currently running on this thread returns. */
    public static void run(Runnable task) {
        Trampoline t = CURRENT.get();
        if (t.running) {
            t.queue.add(task);
            return;
        }
        t.running = true;
        try {
            Runnable next = task;
            while (next != null) {
                try {
                    next.run();
                } catch (Throwable e) {
                    // one failing task (an Error included) must not lose the tasks queued behind it
                    LoggerFactory.getLogger(Trampoline.class).error("a queued executor task failed", e);
                }
                next = t.queue.poll();
            }
        } finally {
            t.running = false;
            t.queue.clear();
        }
    }
}
