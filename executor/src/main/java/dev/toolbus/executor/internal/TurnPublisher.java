package dev.toolbus.executor.internal;

import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.spi.Principal;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * The Flux of one turn's events: the turn is queued on its stream's lane at the first request, events
 * go straight to the subscriber while it has demand and are buffered otherwise (a turn has few; live
 * events are refused while {@link TurnLiveEvents#MAX_PENDING} wait), and cancelling cancels the turn's
 * calls. Cheaper than {@code Flux.create}, which matters per turn.
 */
final class TurnPublisher extends Flux<OutboundEvent> {

    private final Engine executor;
    private final ToolCallsEvent turn;
    private final Principal principal;

    TurnPublisher(Engine executor, ToolCallsEvent turn, Principal principal) {
        this.executor = executor;
        this.turn = turn;
        this.principal = principal;
    }

    @Override
    public void subscribe(CoreSubscriber<? super OutboundEvent> actual) {
        actual.onSubscribe(new TurnSubscription(actual, this));
    }

    /**
     * One subscriber's turn, without a lock on its common path. Delivery is serialized by a wip counter
     * ({@link #wip}: the thread that moves it from 0 owns the subscriber until it brings it back to 0,
     * re-checking for work each time another thread added to it meanwhile), so the subscriber is called
     * by one thread at a time and a cancel it issues from {@code onNext} takes effect before the next
     * event. An event offered by {@link #emit} goes straight to the subscriber when the caller takes the
     * wip, nothing is buffered before it and there is demand; everything else (events offered by
     * {@link #next} or {@link #live}, which may be called holding a lock, or while the subscriber has no
     * demand) waits in the buffer, which only the monitor guards; {@link #buffered} mirrors its size for
     * the lock-free checks.
     */
    static final class TurnSubscription implements Subscription, TurnRun.Sink {

        private static final AtomicIntegerFieldUpdater<TurnSubscription> WIP =
                AtomicIntegerFieldUpdater.newUpdater(TurnSubscription.class, "wip");
        private static final AtomicLongFieldUpdater<TurnSubscription> REQUESTED =
                AtomicLongFieldUpdater.newUpdater(TurnSubscription.class, "requested");
        private static final AtomicIntegerFieldUpdater<TurnSubscription> FLAGS =
                AtomicIntegerFieldUpdater.newUpdater(TurnSubscription.class, "flags");
        private static final int STARTED = 1;
        private static final int COMPLETED = 2;
        private static final int CANCELLED = 4;
        private static final int TERMINATED = 8;

        private final CoreSubscriber<? super OutboundEvent> actual;
        /** The executor and the turn (one field for both keeps the subscription small). */
        private final TurnPublisher source;
        /** Events not yet delivered, in order: the first two in fields, the rest behind; guarded by the monitor. */
        private OutboundEvent first;
        private OutboundEvent second;
        private ArrayDeque<OutboundEvent> more;
        /** The buffer's size; written holding the monitor, read without it. */
        private volatile int buffered;
        private volatile long requested;
        private volatile int flags;
        private volatile int wip;
        private volatile TurnRun run;

        TurnSubscription(CoreSubscriber<? super OutboundEvent> actual, TurnPublisher source) {
            this.actual = actual;
            this.source = source;
        }

        /** Sets {@code bit}; whether this call set it (it was clear). */
        private boolean setFlag(int bit) {
            for (;;) {
                int f = flags;
                if ((f & bit) != 0) {
                    return false;
                }
                if (FLAGS.compareAndSet(this, f, f | bit)) {
                    return true;
                }
            }
        }

        private boolean isCancelled() {
            return (flags & CANCELLED) != 0;
        }

        @Override
        public void request(long n) {
            if (!Operators.validate(n)) {
                cancel();
                actual.onError(Operators.onOperatorError(new IllegalArgumentException(
                        "§3.9 violated: positive request amount required but it was " + n), actual.currentContext()));
                return;
            }
            Operators.addCap(REQUESTED, this, n);
            int f = flags;
            if ((f & STARTED) == 0 && (f & CANCELLED) == 0 && setFlag(STARTED)) {
                Engine executor = source.executor;
                TurnRun r = executor.newTurn(source.turn, source.principal, this);
                r.parentObservation(executor.tracingParent(source.turn, actual.currentContext()));
                run = r;
                if (isCancelled()) {
                    // a cancel that raced this first request found no turn to cancel: the turn ends at its start
                    r.cancel(executor.abandonReason());
                }
                executor.submit(r, this);
                return;
            }
            if (buffered > 0 || (flags & COMPLETED) != 0) {
                // only what waited for demand (a drain in progress sees the new demand itself)
                drain();
            }
        }

        @Override
        public void cancel() {
            if ((flags & TERMINATED) != 0) {
                setFlag(CANCELLED);
                return;
            }
            if (!setFlag(CANCELLED)) {
                return;
            }
            if (buffered > 0) {
                synchronized (this) {
                    clearBuffer();
                }
            }
            TurnRun r = run;
            if (r != null) {
                source.executor.subscriberCancelled();
                r.cancel(source.executor.abandonReason());
            }
        }

        @Override
        public Mono<Void> live(OutboundEvent event) {
            synchronized (this) {
                if (buffered >= TurnLiveEvents.MAX_PENDING) {
                    return null;
                }
                if (!isCancelled()) {
                    offer(event);
                }
            }
            return Mono.empty();
        }

        @Override
        public void next(OutboundEvent event) {
            if (isCancelled()) {
                return;
            }
            synchronized (this) {
                offer(event);
            }
        }

        /** Delivers the event now when this thread takes the wip, nothing waits before it and there is demand; else queues it. */
        @Override
        public void emit(OutboundEvent event) {
            if (isCancelled()) {
                return;
            }
            if (wip == 0 && WIP.compareAndSet(this, 0, 1)) {
                if (buffered == 0 && requested > 0) {
                    produced();
                    deliver(event);
                    if (WIP.decrementAndGet(this) != 0) {
                        drainLoop(1);
                    }
                    return;
                }
                // no demand, or events before this one: it waits, and this thread drains (it holds the wip; a
                // request that came before the offer saw nothing buffered and left the delivery to it)
                bufferAndDrain(event, null, false);
                return;
            }
            bufferAndDrain(event, null, true);
        }

        /**
         * Buffers one or two events (the second is the turn's last: the turn is then marked completed) and
         * drains; {@code take}: the caller does not hold the wip. Apart from the direct paths, so that those
         * stay small where they are inlined.
         */
        private void bufferAndDrain(OutboundEvent a, OutboundEvent b, boolean take) {
            if (!isCancelled()) {
                synchronized (this) {
                    offer(a);
                    if (b != null) {
                        offer(b);
                    }
                }
            }
            if (b != null) {
                setFlag(COMPLETED);
            }
            if (take) {
                drain();
            } else {
                drainLoop(1);
            }
        }

        /**
         * The turn's result and {@code turn_completed}, then its end: with demand for both and nothing
         * buffered, delivered under one hold of the wip (and completed with one flag update); else
         * buffered and drained as usual. A cancel from the first {@code onNext} stops the rest.
         */
        @Override
        public void completeWith(OutboundEvent result, OutboundEvent completed) {
            TurnRun r = run;
            if (!isCancelled() && wip == 0 && WIP.compareAndSet(this, 0, 1)) {
                long n = requested;
                if (buffered == 0 && n >= 2) {
                    if (n != Long.MAX_VALUE) {
                        REQUESTED.addAndGet(this, -2);
                    }
                    deliver(result);
                    if (!isCancelled()) {
                        deliver(completed);
                        if (setFlags(COMPLETED | TERMINATED)) {
                            try {
                                actual.onComplete();
                            } catch (Throwable t) {
                                wip = 0;
                                throw t;
                            }
                        }
                    }
                    if (WIP.decrementAndGet(this) != 0) {
                        drainLoop(1);
                    }
                } else {
                    // too little demand, or events before these: they wait, and this thread drains (it holds the wip)
                    bufferAndDrain(result, completed, false);
                }
            } else {
                bufferAndDrain(result, completed, true);
            }
            if (r != null) {
                r.done();
            }
        }

        /** Sets {@code bits} unless cancelled, terminated or any of them is set; whether this call set them. */
        private boolean setFlags(int bits) {
            for (;;) {
                int f = flags;
                if ((f & (bits | CANCELLED | TERMINATED)) != 0) {
                    return false;
                }
                if (FLAGS.compareAndSet(this, f, f | bits)) {
                    return true;
                }
            }
        }

        // the buffer; callers hold the monitor

        private void offer(OutboundEvent event) {
            int n = buffered;
            if (n == 0) {
                first = event;
            } else if (n == 1) {
                second = event;
            } else {
                if (more == null) {
                    more = new ArrayDeque<>(4);
                }
                more.add(event);
            }
            buffered = n + 1;
        }

        /** The first buffered event, or null when the buffer is empty. */
        private OutboundEvent poll() {
            int n = buffered;
            if (n == 0) {
                return null;
            }
            OutboundEvent e = first;
            first = second;
            second = more == null ? null : more.poll();
            buffered = n - 1;
            return e;
        }

        private void clearBuffer() {
            first = null;
            second = null;
            if (more != null) {
                more.clear();
            }
            buffered = 0;
        }

        private void produced() {
            long r = requested;
            if (r != Long.MAX_VALUE) {
                REQUESTED.decrementAndGet(this);
            }
        }

        /** Calls {@code onNext} (the caller holds the wip); a subscriber that throws gives the wip up. */
        private void deliver(OutboundEvent e) {
            try {
                actual.onNext(e);
            } catch (Throwable t) {
                wip = 0;
                throw t;
            }
        }

        @Override
        public void complete() {
            TurnRun r = run;
            setFlag(COMPLETED);
            drain();
            if (r != null) {
                r.done();
            }
        }

        /** Emits buffered events while there is demand; completes when the turn is done and drained. */
        @Override
        public void flush() {
            drain();
        }

        private void drain() {
            if (WIP.getAndIncrement(this) == 0) {
                drainLoop(1);
            }
        }

        /** The drain loop; the caller took the wip ({@code missed} of it). */
        private void drainLoop(int missed) {
            for (;;) {
                for (;;) {
                    int f = flags;
                    if ((f & CANCELLED) != 0) {
                        if (buffered > 0) {
                            synchronized (this) {
                                clearBuffer();
                            }
                        }
                        break;
                    }
                    if (buffered > 0 && requested > 0) {
                        OutboundEvent e;
                        synchronized (this) {
                            e = poll();
                        }
                        if (e == null) {
                            continue; // a cancel cleared the buffer meanwhile
                        }
                        produced();
                        deliver(e);
                        continue;
                    }
                    if (buffered == 0 && (f & COMPLETED) != 0 && setFlag(TERMINATED)) {
                        try {
                            actual.onComplete();
                        } catch (Throwable t) {
                            wip = 0;
                            throw t;
                        }
                    }
                    break;
                }
                missed = WIP.addAndGet(this, -missed);
                if (missed == 0) {
                    return;
                }
            }
        }
    }
}
