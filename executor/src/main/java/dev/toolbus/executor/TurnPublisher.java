package dev.toolbus.executor;

import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import java.util.ArrayDeque;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * The Flux of one turn's events: the turn is queued on its stream's lane at the first request, events
 * go straight to the subscriber while it has demand and are buffered otherwise (a turn has few; live
 * events are refused while {@link LiveChannel#MAX_PENDING} wait), and cancelling cancels the turn's
 * calls. Cheaper than {@code Flux.create}, which matters per turn.
 */
final class TurnPublisher extends Flux<OutboundEvent> {

    private final DefaultToolExecutor executor;
    private final ToolCallsEvent turn;

    TurnPublisher(DefaultToolExecutor executor, ToolCallsEvent turn) {
        this.executor = executor;
        this.turn = turn;
    }

    @Override
    public void subscribe(CoreSubscriber<? super OutboundEvent> actual) {
        actual.onSubscribe(new TurnSubscription(actual, executor, turn));
    }

    /** One subscriber's turn. All state is guarded by the subscription's monitor. */
    static final class TurnSubscription implements Subscription, TurnRun.Sink {

        private final CoreSubscriber<? super OutboundEvent> actual;
        private final DefaultToolExecutor executor;
        private final ToolCallsEvent turn;
        private ArrayDeque<OutboundEvent> buffer;
        private long requested;
        private boolean started;
        private boolean completed;
        private boolean terminated;
        private boolean cancelled;
        private boolean emitting;
        private TurnRun run;

        TurnSubscription(CoreSubscriber<? super OutboundEvent> actual, DefaultToolExecutor executor,
                         ToolCallsEvent turn) {
            this.actual = actual;
            this.executor = executor;
            this.turn = turn;
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
            synchronized (this) {
                requested = Operators.addCap(requested, n);
                start = !started && !cancelled;
                started = true;
                drain();
            }
            if (start) {
                TurnRun r = executor.newTurn(turn, this);
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
                buffer = null;
                r = run;
            }
            if (r != null) {
                executor.subscriberCancelled();
                r.cancel();
            }
        }

        @Override
        public Mono<Void> live(OutboundEvent event) {
            synchronized (this) {
                if (buffer != null && buffer.size() >= LiveChannel.MAX_PENDING) {
                    return null;
                }
                next(event);
            }
            return Mono.empty();
        }

        @Override
        public void next(OutboundEvent event) {
            synchronized (this) {
                if (cancelled) {
                    return;
                }
                if (!emitting && requested > 0 && (buffer == null || buffer.isEmpty())) {
                    if (requested != Long.MAX_VALUE) {
                        requested--;
                    }
                    emitting = true;
                    try {
                        actual.onNext(event);
                    } finally {
                        emitting = false;
                    }
                    return;
                }
                if (buffer == null) {
                    buffer = new ArrayDeque<>(4);
                }
                buffer.add(event);
                drain();
            }
        }

        @Override
        public void complete() {
            TurnRun r;
            synchronized (this) {
                completed = true;
                drain();
                r = run;
            }
            if (r != null) {
                r.done();
            }
        }

        /** Emits buffered events while there is demand; completes when the turn is done and drained. */
        private void drain() {
            if (emitting) {
                return;
            }
            emitting = true;
            try {
                while (!cancelled && buffer != null && !buffer.isEmpty() && requested > 0) {
                    if (requested != Long.MAX_VALUE) {
                        requested--;
                    }
                    actual.onNext(buffer.poll());
                }
                if (completed && !terminated && !cancelled && (buffer == null || buffer.isEmpty())) {
                    terminated = true;
                    actual.onComplete();
                }
            } finally {
                emitting = false;
            }
        }
    }
}
