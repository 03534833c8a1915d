package dev.toolbus.bus.kafka;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.scheduler.Schedulers;

/**
 * Where the at-least-once producer's acknowledgements continue: one thread of its own, never the
 * producer's I/O thread (a send from there can deadlock it). Tasks run in the order they came; a
 * burst of acknowledgements (one produce response completes the sends of many turns) wakes the
 * thread once and runs in one pass, where a {@code publishOn} per publish scheduled, queued and woke
 * a worker for each (a tenth of the consumer's CPU in the at-least-once load run). What continues
 * here is what continues on a Redis client's event loop: the executor's completion of a turn, which
 * does not block. The queue holds at most one task per publish in flight, which the poll loop bounds.
 */
final class CompletionLane implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CompletionLane.class);

    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger wip = new AtomicInteger();
    private final ExecutorService thread;

    CompletionLane(String name) {
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** Runs the task on the lane's thread, after those given before it. Any thread. */
    void execute(Runnable task) {
        queue.add(task);
        if (wip.getAndIncrement() == 0) {
            try {
                thread.execute(this::drain);
            } catch (RejectedExecutionException closed) {
                // a late acknowledgement after close: still off the producer's thread
                Schedulers.boundedElastic().schedule(this::drain);
            }
        }
    }

    private void drain() {
        int missed = 1;
        do {
            Runnable r;
            while ((r = queue.poll()) != null) {
                try {
                    r.run();
                } catch (Throwable t) {
                    log.warn("kafka bus: a send completion failed: {}", t.toString());
                }
            }
            missed = wip.addAndGet(-missed);
        } while (missed != 0);
    }

    /** Stops the thread once what is queued ran (waits a little for it). */
    @Override
    public void close() {
        thread.shutdown();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
