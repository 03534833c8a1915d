package dev.toolbus.benchmarks;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.infra.Blackhole;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

/**
 * Submits a batch of turns to an executor and waits until every turn has completed. Each turn's
 * {@code Flux} gets a minimal subscriber (unbounded demand, every event to the Blackhole), so the
 * harness adds as little as possible to what the executor costs; no merge operator sits in between.
 */
final class TurnBatch {

    private static final long MAX_WAIT_NANOS = TimeUnit.MINUTES.toNanos(2);

    private final Blackhole bh;
    private final AtomicInteger remaining;
    private final AtomicInteger completedTurns = new AtomicInteger();
    private final Thread waiter = Thread.currentThread();
    private volatile Throwable error;

    private TurnBatch(int size, Blackhole bh) {
        this.bh = bh;
        this.remaining = new AtomicInteger(size);
    }

    /** Runs the turns; returns how many {@code turn_completed} events arrived (always all of them). */
    static int run(ToolExecutor executor, List<ToolCallsEvent> turns, Blackhole bh) {
        TurnBatch batch = new TurnBatch(turns.size(), bh);
        for (int i = 0; i < turns.size(); i++) {
            executor.execute(turns.get(i)).subscribe(batch.new TurnSubscriber());
        }
        return batch.await(turns.size());
    }

    private int await(int expected) {
        long deadline = System.nanoTime() + MAX_WAIT_NANOS;
        while (remaining.get() != 0) {
            LockSupport.parkNanos(this, 100_000);
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(remaining.get() + " turns did not complete in time");
            }
        }
        Throwable e = error;
        if (e != null) {
            throw new IllegalStateException("a turn failed", e);
        }
        int n = completedTurns.get();
        if (n != expected) {
            throw new IllegalStateException("expected " + expected + " turn_completed, got " + n);
        }
        return n;
    }

    private final class TurnSubscriber implements CoreSubscriber<OutboundEvent> {

        @Override
        public void onSubscribe(Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(OutboundEvent event) {
            bh.consume(event);
            if (event instanceof TurnCompletedEvent) {
                completedTurns.incrementAndGet();
            }
        }

        @Override
        public void onError(Throwable t) {
            error = t;
            done();
        }

        @Override
        public void onComplete() {
            done();
        }

        private void done() {
            if (remaining.decrementAndGet() == 0 && Thread.currentThread() != waiter) {
                LockSupport.unpark(waiter);
            }
        }
    }
}
