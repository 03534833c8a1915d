package dev.toolbus.plugins.stdio;

import java.util.ArrayDeque;
import java.util.function.Function;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * A fixed number of permits, taken asynchronously: a call waits (without a thread) until a permit
 * is free, holds it while its body runs, and gives it back however the body ends. A call cancelled
 * while waiting leaves the queue; waiters are served in arrival order. {@link PluginSupervisor} runs
 * the calls of a plugin that is not {@code concurrent} through one permit.
 */
final class Permits {

    private static final int NEW = 0;
    private static final int WAITING = 1;
    private static final int HOLDING = 2;
    private static final int DONE = 3;

    private final int permits;
    private final ArrayDeque<Ticket> queue = new ArrayDeque<>();
    private int active;

    Permits(int permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1");
        }
        this.permits = permits;
    }

    /** Runs {@code body} once a permit is held; the permit is released when the body ends or is cancelled. */
    <T> Mono<T> run(Supplier<Mono<T>> body) {
        return run(lease -> body.get());
    }

    /**
     * Runs {@code body} once a permit is held. The permit is released when the body ends or is
     * cancelled, unless the body {@link Lease#retain() retained} its lease by then: then it is released
     * by {@link Lease#release()}, whoever calls it.
     */
    <T> Mono<T> run(Function<Lease, Mono<T>> body) {
        return Mono.defer(() -> {
            Ticket t = new Ticket();
            return Mono.<Void>create(sink -> enter(t, sink))
                    .then(Mono.defer(() -> body.apply(t)))
                    .doFinally(s -> {
                        if (!t.retained) {
                            leave(t);
                        }
                    });
        });
    }

    /** A held permit that may outlive the body that took it. */
    interface Lease {
        /** Keeps the permit past the end of the body, until {@link #release()}. */
        void retain();

        /** Gives the permit back (idempotent). */
        void release();
    }

    /** Calls holding a permit (for tests). */
    synchronized int active() {
        return active;
    }

    private void enter(Ticket t, MonoSink<Void> sink) {
        boolean granted = false;
        synchronized (this) {
            if (t.state != NEW) {
                return;
            }
            if (active < permits) {
                active++;
                t.state = HOLDING;
                granted = true;
            } else {
                t.state = WAITING;
                t.sink = sink;
                queue.add(t);
            }
        }
        if (granted) {
            sink.success();
        }
    }

    private void leave(Ticket t) {
        MonoSink<Void> next = null;
        synchronized (this) {
            int was = t.state;
            t.state = DONE;
            if (was == WAITING) {
                queue.remove(t);
            } else if (was == HOLDING) {
                Ticket n = queue.poll();
                if (n != null) {
                    n.state = HOLDING;
                    next = n.sink;
                    n.sink = null;
                } else {
                    active--;
                }
            }
        }
        if (next != null) {
            next.success();
        }
    }

    private final class Ticket implements Lease {
        int state = NEW;
        MonoSink<Void> sink;
        volatile boolean retained;

        @Override
        public void retain() {
            retained = true;
        }

        @Override
        public void release() {
            leave(this);
        }
    }
}
