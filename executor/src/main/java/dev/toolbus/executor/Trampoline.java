package dev.toolbus.executor;

import java.util.ArrayDeque;

/** Runs tasks iteratively instead of recursively when a task schedules more work on the same thread. */
final class Trampoline {

    private static final ThreadLocal<Trampoline> CURRENT = ThreadLocal.withInitial(Trampoline::new);

    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    private boolean running;

    private Trampoline() {
    }

    /** Runs the task now, or after the task currently running on this thread returns. */
    static void run(Runnable task) {
        Trampoline t = CURRENT.get();
        if (t.running) {
            t.queue.add(task);
            return;
        }
        t.running = true;
        try {
            Runnable next = task;
            while (next != null) {
                next.run();
                next = t.queue.poll();
            }
        } finally {
            t.running = false;
            t.queue.clear();
        }
    }
}
