package dev.toolbus.executor.state;

import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ReplayedEvent;
import dev.toolbus.protocol.SendMessageEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolProgressEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.spi.TurnLedger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Puts a {@link TurnLedger} in front of a turn's run: a finished turn is answered with its recorded
 * events marked replayed, a running one is joined, any other runs and is recorded when its events are
 * out (released on every other ending: an error, an {@code Error}, a cancel). On a bus the in-memory
 * ledger records the turn just before its last batch (the one with {@code turn_completed}) is handed to
 * the bus, so whoever saw the turn end and sends it again gets a replay, never a join of a run whose
 * events are already out; a publish that then fails leaves the turn recorded, and its redelivery is
 * answered with the recorded events, marked replayed. A bus with a ledger of its own records the turn in
 * the same write as its events (the Redis bus) or after them.
 *
 * <p>On a bus a joined turn publishes nothing (the run it joined publishes the events once to the same
 * stream) and is settled when that run completes. A caller of {@link ToolExecutor#handle} that joined
 * gets the run's events, marked replayed.
 */
final class IdempotentTurns {

    private static final Logger log = LoggerFactory.getLogger(IdempotentTurns.class);

    private IdempotentTurns() {
    }

    /**
     * Whether the event is one of the turn's recorded events (not a live event). A call's result replayed
     * from the call journal is, unwrapped ({@link #unwrapped}).
     */
    static boolean recorded(OutboundEvent e) {
        OutboundEvent x = unwrapped(e);
        return !(x instanceof ToolProgressEvent || x instanceof SendMessageEvent || x instanceof ApprovalRequestEvent
                || x instanceof InputRequestEvent);
    }

    /** The event itself, or the event a {@link ReplayedEvent} wraps. */
    static OutboundEvent unwrapped(OutboundEvent e) {
        return e instanceof ReplayedEvent r ? r.event() : e;
    }

    /**
     * A turn taken from a bus.
     *
     * @param publish the bus's publish
     * @param run runs the turn with the publish function it is given
     */
    static Mono<Void> forBus(TurnLedger ledger, ToolCallsEvent turn, Function<List<OutboundEvent>, Mono<Void>> publish,
                             Function<Function<List<OutboundEvent>, Mono<Void>>, Mono<Void>> run) {
        return forBus(ledger, RepeatedTurnMetrics.NONE, Principal.local(), turn, publish, run, () -> { });
    }

    /**
     * As above, counting the repeats, for turns of {@code principal}; {@code admitted} is called once the
     * turn is admitted: its run subscribed (so queued in its lane), its recorded events replayed, or the
     * run it joined finished.
     */
    static Mono<Void> forBus(TurnLedger ledger, RepeatedTurnMetrics metrics, Principal principal, ToolCallsEvent turn,
                             Function<List<OutboundEvent>, Mono<Void>> publish,
                             Function<Function<List<OutboundEvent>, Mono<Void>>, Mono<Void>> run, Runnable admitted) {
        if (ledger == TurnLedger.none()) {
            return AdmissionOrder.signalAfterSubscribe(Mono.defer(() -> run.apply(publish)), admitted);
        }
        TurnKey k = TurnKey.of(principal, turn.streamId(), turn.turnId());
        if (ledger instanceof MemoryTurnLedger memory) {
            // admitted where the turn is subscribed: the same steps without the operators around the admission
            return Mono.defer(() -> {
                TurnLedger.Admission a = admitNow(memory, k);
                try {
                    return admittedForBus(ledger, metrics, principal, turn, publish, run, admitted, k, a);
                } catch (RuntimeException | Error e) {
                    if (a instanceof TurnLedger.Admission.Run) {
                        ledger.release(k);
                    }
                    throw e;
                }
            });
        }
        return admit(ledger, k).flatMap(a -> admittedForBus(ledger, metrics, principal, turn, publish, run, admitted, k, a));
    }

    /** {@link #forBus} once the ledger answered: replay, join, or run and record. */
    private static Mono<Void> admittedForBus(TurnLedger ledger, RepeatedTurnMetrics metrics, Principal principal,
                                             ToolCallsEvent turn, Function<List<OutboundEvent>, Mono<Void>> publish,
                                             Function<Function<List<OutboundEvent>, Mono<Void>>, Mono<Void>> run,
                                             Runnable admitted, TurnKey k, TurnLedger.Admission a) {
        String s = turn.streamId();
        String t = turn.turnId();
        if (a instanceof TurnLedger.Admission.Replay r) {
            log.debug("turn {}/{} finished before: {} events replayed", s, t, r.events().size());
            metrics.replayed();
            return (r.events().isEmpty() ? Mono.<Void>empty() : publish.apply(replayed(r.events())))
                    .doFinally(sig -> admitted.run());
        }
        if (a instanceof TurnLedger.Admission.Join j) {
            log.debug("turn {}/{} is running: joined", s, t);
            return j.finished().map(Optional::of).defaultIfEmpty(Optional.empty())
                    .flatMap(o -> {
                        if (o.isPresent()) {
                            metrics.joined();
                            admitted.run();
                            return Mono.<Void>empty();
                        }
                        return forBus(ledger, metrics, principal, turn, publish, run, admitted);
                    });
        }
        List<OutboundEvent> events = new ArrayList<>(turn.calls().size() + 1);
        AtomicBoolean settled = new AtomicBoolean();
        MemoryTurnLedger memory = ledger instanceof MemoryTurnLedger m ? m : null;
        Function<List<OutboundEvent>, Mono<Void>> capture = batch -> {
            if (memory != null && ends(batch)) {
                // recorded before the turn's end goes out: a repeat sent by whoever saw it is replayed
                // (a repeat that found the turn still running would join it and publish nothing)
                keep(events, batch);
                recordNow(memory, k, events, settled);
                return publishing(publish, batch);
            }
            return publishing(publish, batch).doOnSuccess(v -> keep(events, batch));
        };
        return owned(ledger, k, events, settled,
                AdmissionOrder.signalAfterSubscribe(Mono.defer(() -> run.apply(capture)), admitted));
    }

    /** A turn answered to its caller ({@link ToolExecutor#handle}). */
    static Flux<OutboundEvent> forCaller(TurnLedger ledger, ToolCallsEvent turn, Supplier<Flux<OutboundEvent>> run) {
        return forCaller(ledger, RepeatedTurnMetrics.NONE, Principal.local(), turn, run);
    }

    /** As above, counting the repeats, for a turn of {@code principal}. */
    static Flux<OutboundEvent> forCaller(TurnLedger ledger, RepeatedTurnMetrics metrics, Principal principal,
                                         ToolCallsEvent turn, Supplier<Flux<OutboundEvent>> run) {
        if (ledger == TurnLedger.none()) {
            return run.get();
        }
        TurnKey k = TurnKey.of(principal, turn.streamId(), turn.turnId());
        if (ledger instanceof MemoryTurnLedger memory) {
            // admitted and recorded on the calling thread: the same steps without the operators around them
            return Flux.defer(() -> admitted(ledger, metrics, principal, turn, run, k, admitNow(memory, k)));
        }
        return admit(ledger, k).flatMapMany(a -> admitted(ledger, metrics, principal, turn, run, k, a));
    }

    private static Flux<OutboundEvent> admitted(TurnLedger ledger, RepeatedTurnMetrics metrics, Principal principal,
                                                ToolCallsEvent turn, Supplier<Flux<OutboundEvent>> run, TurnKey k,
                                                TurnLedger.Admission a) {
        if (a instanceof TurnLedger.Admission.Replay r) {
            metrics.replayed();
            return Flux.fromIterable(replayed(r.events()));
        }
        if (a instanceof TurnLedger.Admission.Join j) {
            return j.finished().map(Optional::of).defaultIfEmpty(Optional.empty())
                    .flatMapMany(o -> {
                        if (o.isPresent()) {
                            metrics.joined();
                            return Flux.fromIterable(replayed(o.get()));
                        }
                        return forCaller(ledger, metrics, principal, turn, run);
                    });
        }
        List<OutboundEvent> events = new ArrayList<>(turn.calls().size() + 1);
        AtomicBoolean settled = new AtomicBoolean();
        Flux<OutboundEvent> running = Flux.defer(run)
                .doOnNext(e -> {
                    if (recorded(e)) {
                        synchronized (events) {
                            events.add(unwrapped(e));
                        }
                    }
                });
        if (ledger instanceof MemoryTurnLedger memory) {
            // recorded before the caller sees the completion, as the deferred record below is
            running = running.doOnComplete(() -> recordNow(memory, k, events, settled));
        } else {
            running = running.concatWith(Mono.defer(() -> record(ledger, k, events, settled)).then(Mono.empty()));
        }
        return running.doFinally(sig -> release(ledger, k, settled));
    }

    /** The in-memory ledger's admission; one that fails lets the turn run, as {@link #admit} does. */
    private static TurnLedger.Admission admitNow(MemoryTurnLedger ledger, TurnKey k) {
        try {
            return ledger.admitNow(k);
        } catch (RuntimeException e) {
            return ledgerFailed(k, e);
        }
    }

    /** {@link #record} for the in-memory ledger, on the calling thread. */
    private static void recordNow(MemoryTurnLedger ledger, TurnKey k, List<OutboundEvent> events,
                                  AtomicBoolean settled) {
        List<OutboundEvent> copy = settle(events, settled);
        if (copy == null) {
            return;
        }
        try {
            ledger.completeNow(k, copy);
        } catch (RuntimeException e) {
            notRecorded(ledger, k, e);
        }
    }

    /**
     * The admission; a run admitted but never handed on (the subscriber cancelled meanwhile) is released.
     * A ledger that fails admits the turn to run (at least once, rather than lost or stuck).
     */
    private static Mono<TurnLedger.Admission> admit(TurnLedger ledger, TurnKey k) {
        return Mono.defer(() -> ledger.admit(k))
                .onErrorResume(e -> Mono.just(ledgerFailed(k, e)))
                .doOnDiscard(TurnLedger.Admission.Run.class, r -> ledger.release(k));
    }

    private static Mono<Void> publishing(Function<List<OutboundEvent>, Mono<Void>> publish, List<OutboundEvent> batch) {
        try {
            return publish.apply(batch);
        } catch (Throwable e) {
            return Mono.error(e);
        }
    }

    /** Whether the batch holds the turn's {@code turn_completed}, its last event. */
    private static boolean ends(List<OutboundEvent> batch) {
        for (int i = batch.size() - 1; i >= 0; i--) {
            if (unwrapped(batch.get(i)) instanceof TurnCompletedEvent) {
                return true;
            }
        }
        return false;
    }

    private static Mono<Void> owned(TurnLedger ledger, TurnKey k, List<OutboundEvent> events, AtomicBoolean settled,
                                    Mono<Void> run) {
        return run.then(Mono.defer(() -> record(ledger, k, events, settled)))
                .doFinally(sig -> release(ledger, k, settled));
    }

    private static Mono<Void> record(TurnLedger ledger, TurnKey k, List<OutboundEvent> events,
                                     AtomicBoolean settled) {
        List<OutboundEvent> copy = settle(events, settled);
        if (copy == null) {
            return Mono.empty();
        }
        Mono<Void> done;
        try {
            done = ledger.complete(k, copy);
        } catch (RuntimeException e) {
            done = Mono.error(e);
        }
        return done.onErrorResume(e -> {
            notRecorded(ledger, k, e);
            return Mono.empty();
        });
    }

    /** The events to record, taken once: null when the turn was settled already (recorded or released). */
    private static List<OutboundEvent> settle(List<OutboundEvent> events, AtomicBoolean settled) {
        if (!settled.compareAndSet(false, true)) {
            return null;
        }
        synchronized (events) {
            return List.copyOf(events);
        }
    }

    /** A ledger that cannot admit lets the turn run (at least once, rather than lost or stuck). */
    private static TurnLedger.Admission ledgerFailed(TurnKey k, Throwable e) {
        log.warn("turn {}/{}: the turn ledger failed, running the turn: {}", k.streamId(), k.turnId(), e.toString());
        return TurnLedger.Admission.run();
    }

    /** A turn whose record failed is released, so that a repeat runs again. */
    private static void notRecorded(TurnLedger ledger, TurnKey k, Throwable e) {
        log.warn("turn {}/{} not recorded (a repeat will run again): {}", k.streamId(), k.turnId(), e.toString());
        ledger.release(k);
    }

    private static void release(TurnLedger ledger, TurnKey k, AtomicBoolean settled) {
        if (settled.compareAndSet(false, true)) {
            try {
                ledger.release(k);
            } catch (RuntimeException e) {
                log.warn("turn {}/{}: releasing its running mark failed: {}", k.streamId(), k.turnId(), e.toString());
            }
        }
    }

    private static void keep(List<OutboundEvent> events, List<OutboundEvent> batch) {
        synchronized (events) {
            for (OutboundEvent e : batch) {
                if (recorded(e)) {
                    events.add(unwrapped(e));
                }
            }
        }
    }

    private static List<OutboundEvent> replayed(List<OutboundEvent> events) {
        List<OutboundEvent> out = new ArrayList<>(events.size());
        for (OutboundEvent e : events) {
            out.add(ReplayedEvent.of(e));
        }
        return out;
    }
}
