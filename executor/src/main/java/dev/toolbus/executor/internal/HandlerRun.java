package dev.toolbus.executor.internal;

import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolResult;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.Fuseable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * One run of a handler with a timeout that really cancels: on expiry the subscription is disposed
 * (which interrupts a blocking handler's thread) and the context's cancellation signal fires. The run is
 * its context's {@link ToolContext.Handle} (one object per attempt).
 *
 * <p>The timer is armed only when the handler did not finish during subscription, so synchronous
 * handlers pay no timer at all. Exactly one {@link AttemptOutcome} is delivered.
 */
final class HandlerRun extends ToolContext.Handle implements CoreSubscriber<ToolResult>, Runnable {

    private static final AtomicIntegerFieldUpdater<HandlerRun> DONE =
            AtomicIntegerFieldUpdater.newUpdater(HandlerRun.class, "done");

    private final AttemptOutcome.Listener onDone;
    /**
     * When the run started (the executor's nano clock), for {@link RunningCalls}: the turn's own start
     * where the run began inside it, without waiting (see {@link TurnRun#handlerStartIfNow}).
     */
    final long startNanos;
    /** The run's cell in {@link RunningCalls}. */
    int cell = -1;
    private volatile int done;
    private volatile Subscription upstream;
    private volatile Disposable timer;
    private long deadline;
    private ToolResult value;

    /** The run of one attempt, with a new context of {@code context}'s values (see {@link #context()}). */
    HandlerRun(ToolContext.Builder context, AttemptOutcome.Listener onDone, long startNanos) {
        super(context);
        this.onDone = onDone;
        this.startNanos = startNanos;
    }

    /** The run's timeout, for {@link RunningCalls} (its listener's: one field less per attempt). */
    long timeoutNanos() {
        return onDone.timeoutNanos();
    }

    /**
     * Subscribes to the handler's Mono and arms the timeout if it did not finish synchronously. A
     * constant Mono ({@code Mono.just}, {@code Mono.empty}) is read without subscribing: the same
     * ending, without the subscription.
     */
    void start(Mono<ToolResult> source, long timeoutMs, Scheduler timerScheduler) {
        if (source instanceof Fuseable.ScalarCallable<?> constant && readConstant(constant)) {
            return;
        }
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

    /** Ends the run with a constant's value; {@code false} when it has none to give (an error): subscribe then. */
    private boolean readConstant(Fuseable.ScalarCallable<?> constant) {
        ToolResult r;
        try {
            r = (ToolResult) constant.call();
        } catch (Throwable t) {
            return false;
        }
        finish(AttemptOutcome.RESULT, r == null ? ToolResult.empty() : r, null);
        return true;
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

    /**
     * Ends the run cancelled: the subscription is cancelled and the context's
     * {@link ToolContext#cancelReason()} is {@code reason} ({@link #cancel(String)} only cancels the context).
     */
    void abort(String reason) {
        if (DONE.compareAndSet(this, 0, 1)) {
            stop(reason);
            onDone.ended(AttemptOutcome.CANCELLED, null, null);
        }
    }

    /** Ends the run as failed by {@code t} (thrown while starting it); the subscription is cancelled. */
    void fail(Throwable t) {
        if (DONE.compareAndSet(this, 0, 1)) {
            stop(ToolContext.CANCELLED);
            onDone.ended(AttemptOutcome.FAILED, null, t);
        }
    }

    /** Timer expiry. */
    @Override
    public void run() {
        if (DONE.compareAndSet(this, 0, 1)) {
            // the reason first: a source that reacts to the disposal (a stdio plugin's cancel) reads it
            cancel(ToolContext.TIMEOUT);
            Subscription s = upstream;
            if (s != null) {
                s.cancel();
            }
            onDone.ended(AttemptOutcome.TIMEOUT, null, null);
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
        finish(AttemptOutcome.FAILED, null, t);
    }

    @Override
    public void onComplete() {
        ToolResult r = value;
        finish(AttemptOutcome.RESULT, r == null ? ToolResult.empty() : r, null);
    }

    private void finish(AttemptOutcome outcome, ToolResult result, Throwable failure) {
        if (DONE.compareAndSet(this, 0, 1)) {
            Disposable t = timer;
            if (t != null) {
                t.dispose();
            }
            onDone.ended(outcome, result, failure);
        }
    }

    private void stop(String reason) {
        Disposable t = timer;
        if (t != null) {
            t.dispose();
        }
        cancel(reason);
        Subscription s = upstream;
        if (s != null) {
            s.cancel();
        }
    }
}
