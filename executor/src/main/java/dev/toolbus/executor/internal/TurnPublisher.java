package dev.toolbus.executor.internal;

import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.spi.Principal;
import java.util.ArrayDeque;
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
     * One subscriber's turn. All state is guarded by the subscription's monitor; the subscriber is
     * only ever called outside it, by one thread at a time (a drain loop: events offered while the
     * subscriber runs, e.g. by a cancel it issues from {@code onNext}, are emitted when it returns).
     */
    static final class TurnSubscription implements Subscription, TurnRun.Sink {

        private final CoreSubscriber<? super OutboundEvent> actual;
        /** The executor and the turn (one field for both keeps the subscription small). */
        private final TurnPublisher source;
        /** Events not yet delivered, in order: the first two in fields (a one-call turn has two), the rest behind. */
        private OutboundEvent first;
        private OutboundEvent second;
        private ArrayDeque<OutboundEvent> more;
        private int buffered;
        private long requested;
        private boolean started;
        private boolean completed;
        private boolean terminated;
        private boolean cancelled;
        private boolean emitting;
        private TurnRun run;

        TurnSubscription(CoreSubscriber<? super OutboundEvent> actual, TurnPublisher source) {
            this.actual = actual;
            this.source = source;
        }

        @Override
        public void request(long n) {
            if (!Operators.validate(n)) {
                cancel();
                actual.onError(Operators.onOperatorError(new IllegalArgumentException(
                        "§3.9 violated: positive request amount required but it was " + n), actual.currentContext()));
                return;
            }
            boolean start;
            boolean pending;
            synchronized (this) {
                requested = Operators.addCap(requested, n);
                start = !started && !cancelled;
                started = true;
                pending = buffered > 0 || completed;
            }
            if (pending) {
                // only what waited for demand (a drain in progress sees the new demand itself)
                flush();
            }
            if (start) {
                Engine executor = source.executor;
                TurnRun r = executor.newTurn(source.turn, source.principal, this);
                r.parentObservation(executor.tracingParent(source.turn, actual.currentContext()));
                synchronized (this) {
                    run = r;
                }
                executor.submit(r, this);
            }
        }

        @Override
        public void cancel() {
            TurnRun r;
            synchronized (this) {
                if (cancelled || terminated) {
                    cancelled = true;
                    return;
                }
                cancelled = true;
                clearBuffer();
                r = run;
            }
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
                if (!cancelled) {
                    offer(event);
                }
            }
            return Mono.empty();
        }

        @Override
        public void next(OutboundEvent event) {
            synchronized (this) {
                if (!cancelled) {
                    offer(event);
                }
            }
        }

        // the buffer; callers hold the monitor

        private void offer(OutboundEvent event) {
            if (buffered == 0) {
                first = event;
            } else if (buffered == 1) {
                second = event;
            } else {
                if (more == null) {
                    more = new ArrayDeque<>(4);
                }
                more.add(event);
            }
            buffered++;
        }

        private OutboundEvent poll() {
            OutboundEvent e = first;
            first = second;
            second = more == null ? null : more.poll();
            buffered--;
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

        @Override
        public void complete() {
            TurnRun r;
            boolean drain;
            synchronized (this) {
                completed = true;
                r = run;
                drain = !emitting;
                emitting = true;
            }
            if (drain) {
                drain();
            }
            if (r != null) {
                r.done();
            }
        }

        /** Emits buffered events while there is demand; completes when the turn is done and drained. */
        @Override
        public void flush() {
            synchronized (this) {
                if (emitting) {
                    return;
                }
                emitting = true;
            }
            drain();
        }

        /** The drain loop; the caller set {@code emitting}. */
        private void drain() {
            for (;;) {
                OutboundEvent e = null;
                boolean end = false;
                synchronized (this) {
                    if (!cancelled && buffered > 0 && requested > 0) {
                        if (requested != Long.MAX_VALUE) {
                            requested--;
                        }
                        e = poll();
                    } else if (completed && !terminated && !cancelled && buffered == 0) {
                        terminated = true;
                        end = true;
                    } else {
                        emitting = false;
                        return;
                    }
                }
                try {
                    if (end) {
                        actual.onComplete();
                        return;
                    }
                    actual.onNext(e);
                } catch (Throwable t) {
                    synchronized (this) {
                        emitting = false;
                    }
                    throw t;
                }
            }
        }
    }
}
