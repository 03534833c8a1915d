package dev.toolbus.executor;

import java.util.ArrayDeque;

/** Runs tasks iteratively instead of recursively when a task schedules more work on the same thread. */
final class Trampoline {

    private static final ThreadLocal<ArrayDeque<Runnable>> QUEUE = new ThreadLocal<>();

    private Trampoline() {
    }

    /** Runs the task now, or after the task currently running on this thread returns. */
    static void run(Runnable task) {
        ArrayDeque<Runnable> q = QUEUE.get();
        if (q != null) {
            q.add(task);
            return;
        }
        q = new ArrayDeque<>();
        QUEUE.set(q);
        try {
            Runnable next = task;
            while (next != null) {
                next.run();
                next = q.poll();
            }
        } finally {
            QUEUE.remove();
        }
    }
}
