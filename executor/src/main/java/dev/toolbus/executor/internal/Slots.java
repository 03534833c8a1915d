package dev.toolbus.executor.internal;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.LoggerFactory;

/**
 * The global bound on running handlers: a FIFO of waiting tasks and a fixed number of slots. A task
 * runs while holding a slot and must call {@link #release()} exactly once. When nobody waits and a slot
 * is free, a task runs at once on its submitter's thread, neither queued nor holding the drain, so
 * submitters on different threads (event loops) run side by side, each its own task. Waiting tasks
 * are run by the drain loop, which is serialized and iterative (a chain of synchronously completing
 * waiting tasks never deepens the stack), on the thread that freed a slot or queued a task.
 *
 * <p>A task that throws out of {@code run()} (an {@code Error} included) is taken not to hold its
 * slot any more: the slot is freed for it and the drain goes on, so one failing task never wedges the
 * executor. Tasks that return normally own their slot until they call {@link #release()}.
 */
final class Slots {

    private final int size;
    private final AtomicInteger free;
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicInteger wip = new AtomicInteger();
    private final ConcurrentLinkedQueue<Runnable> waiting = new ConcurrentLinkedQueue<>();

    Slots(int size) {
        this.size = size;
        this.free = new AtomicInteger(size);
    }

    /**
     * Runs the task once a slot is free (now, if one is).
     *
     * @return {@code false} when {@code maxQueued} tasks are already waiting (the task is not queued)
     */
    boolean submit(Runnable task, int maxQueued) {
        // nothing waits and a slot is free: run on this thread, without the drain. Holding the drain here
        // would hand every task submitted meanwhile by other threads to this one, to run after this task:
        // a turn read on one event loop would run (and write its events) on another, behind another turn.
        if (queued.get() == 0) {
            for (int f = free.get(); f > 0; f = free.get()) {
                if (free.compareAndSet(f, f - 1)) {
                    runHeld(task);
                    return true;
                }
            }
        }
        if (!enqueue(task, maxQueued)) {
            return false;
        }
        drain();
        return true;
    }

    /**
     * Frees a slot and runs the next waiting task, if any. With nothing queued it does not take the
     * drain: a task is counted in {@code queued} before it is offered and its submitter then drains,
     * reading {@code free} after this increment, or this read of {@code queued} sees it (both volatile).
     */
    void release() {
        free.incrementAndGet();
        if (queued.get() != 0) {
            drain();
        }
    }

    /** Slots in use. */
    int inUse() {
        return size - free.get();
    }

    /** Tasks waiting for a slot. */
    int queued() {
        return queued.get();
    }

    /** Slots in all. */
    int size() {
        return size;
    }

    /** Runs a task that holds a slot; a throwing task gets its slot back, and the drain goes on. */
    private void runHeld(Runnable task) {
        try {
            task.run();
        } catch (Throwable t) {
            free.incrementAndGet();
            LoggerFactory.getLogger(Slots.class).error("an executor task failed; its slot is freed", t);
        }
    }

    private boolean enqueue(Runnable task, int maxQueued) {
        if (queued.incrementAndGet() > maxQueued) {
            queued.decrementAndGet();
            return false;
        }
        waiting.offer(task);
        return true;
    }

    private void drain() {
        if (wip.getAndIncrement() == 0) {
            drainLoop();
        }
    }

    /** Runs waiting tasks while slots are free; the caller holds the drain (wip > 0). */
    private void drainLoop() {
        int missed = 1;
        for (;;) {
            while (free.get() > 0) {
                Runnable task = waiting.poll();
                if (task == null) {
                    break;
                }
                free.decrementAndGet();
                queued.decrementAndGet();
                runHeld(task);
            }
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }
}
