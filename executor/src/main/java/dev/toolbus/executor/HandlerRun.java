package dev.toolbus.executor;

import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolResult;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.Consumer;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * One run of a handler with a timeout that really cancels: on expiry the subscription is disposed
 * (which interrupts a blocking handler's thread) and the context's cancellation signal fires.
 *
 * <p>The timer is armed only when the handler did not finish during subscription, so synchronous
 * handlers pay no timer at all. Exactly one {@link AttemptOutcome} is delivered.
 */
final class HandlerRun implements CoreSubscriber<ToolResult>, Runnable {

    private static final AtomicIntegerFieldUpdater<HandlerRun> DONE =
            AtomicIntegerFieldUpdater.newUpdater(HandlerRun.class, "done");

    private final ToolContext context;
    private final Consumer<AttemptOutcome> onDone;
    private volatile int done;
    private volatile Subscription upstream;
    private volatile Disposable timer;
    private long deadline;
    private ToolResult value;

    HandlerRun(ToolContext context, Consumer<AttemptOutcome> onDone) {
        this.context = context;
        this.onDone = onDone;
    }

    /** Subscribes to the handler's Mono and arms the timeout if it did not finish synchronously. */
    void start(Mono<ToolResult> source, long timeoutMs, Scheduler timerScheduler) {
        source.subscribe(this);
        if (done == 0) {
            synchronized (this) {
                long due = timerScheduler.now(TimeUnit.MILLISECONDS) + timeoutMs;
                if (deadline > due) {
                    // a question asked during subscription already moved the deadline
                    return;
                }
                deadline = due;
                Disposable t = timerScheduler.schedule(this, timeoutMs, TimeUnit.MILLISECONDS);
                timer = t;
            }
            if (done != 0) {
                timer.dispose();
            }
        }
    }

    /**
     * Moves the timeout so it fires no earlier than {@code deadlineMs} (epoch ms of the timer): the
     * handler waits for a user's answer meanwhile.
     */
    void extendDeadline(long deadlineMs, Scheduler timerScheduler) {
        synchronized (this) {
            if (done != 0 || deadlineMs <= deadline) {
                return;
            }
            deadline = deadlineMs;
            Disposable old = timer;
            if (old != null) {
                old.dispose();
            }
            long wait = Math.max(0, deadlineMs - timerScheduler.now(TimeUnit.MILLISECONDS));
            timer = timerScheduler.schedule(this, wait, TimeUnit.MILLISECONDS);
        }
        if (done != 0) {
            Disposable t = timer;
            if (t != null) {
                t.dispose();
            }
        }
    }

    /** Cancels the run (the turn was abandoned) with the reason {@code cancelled}. */
    void cancel() {
        cancel(ToolContext.CANCELLED);
    }

    /** Cancels the run; the context's {@link ToolContext#cancelReason()} is {@code reason}. */
    void cancel(String reason) {
        if (DONE.compareAndSet(this, 0, 1)) {
            stop(reason);
            onDone.accept(AttemptOutcome.CANCELLED);
        }
    }

    /** Ends the run as failed by {@code t} (thrown while starting it); the subscription is cancelled. */
    void fail(Throwable t) {
        if (DONE.compareAndSet(this, 0, 1)) {
            stop(ToolContext.CANCELLED);
            onDone.accept(AttemptOutcome.failed(t));
        }
    }

    /** Timer expiry. */
    @Override
    public void run() {
        if (DONE.compareAndSet(this, 0, 1)) {
            // the reason first: a source that reacts to the disposal (a stdio plugin's cancel) reads it
            context.cancel(ToolContext.TIMEOUT);
            Subscription s = upstream;
            if (s != null) {
                s.cancel();
            }
            onDone.accept(AttemptOutcome.TIMED_OUT);
        }
    }

    @Override
    public void onSubscribe(Subscription s) {
        upstream = s;
        if (done != 0) {
            s.cancel();
            return;
        }
        s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(ToolResult result) {
        value = result;
    }

    @Override
    public void onError(Throwable t) {
        finish(AttemptOutcome.failed(t));
    }

    @Override
    public void onComplete() {
        ToolResult r = value;
        finish(AttemptOutcome.result(r == null ? ToolResult.empty() : r));
    }

    private void finish(AttemptOutcome outcome) {
        if (DONE.compareAndSet(this, 0, 1)) {
            Disposable t = timer;
            if (t != null) {
                t.dispose();
            }
            onDone.accept(outcome);
        }
    }

    private void stop(String reason) {
        Disposable t = timer;
        if (t != null) {
            t.dispose();
        }
        context.cancel(reason);
        Subscription s = upstream;
        if (s != null) {
            s.cancel();
        }
    }
}
