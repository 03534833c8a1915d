package dev.toolbus.spi;

import dev.toolbus.protocol.OutboundEvent;
import java.util.List;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * Idempotent turns: the record of turns that finished (and are running), keyed by {@link TurnKey}
 * (principal, {@code stream_id}, {@code turn_id}): the same turn id from another principal is another
 * turn, never replayed or joined. The executor asks it before running a turn from a bus or from
 * {@code ToolExecutor.handle}: a turn that finished within the window is not run again (its recorded
 * events are published again, each a {@link dev.toolbus.protocol.ReplayedEvent}), and a turn that
 * arrives while the same turn runs joins that run.
 *
 * <p>The default is an in-memory ledger per executor (bounded by {@code TurnLedgerSettings}); a bus can
 * bring its own as the ledger of its {@link ToolBus#turnState()} (Redis shares running turns across
 * instances that way). The executor calls, per turn: {@link #admit} once; then, only after
 * {@link Admission#run()}, exactly one of {@link #complete} (the turn's events are published) or
 * {@link #release} (the run failed or was cancelled, an {@code Error} included).
 */
public interface TurnLedger {

    /**
     * Decides what to do with an arriving turn.
     *
     * @return {@link Admission#run()}: the caller now owns the turn; {@link Admission#replay}: it finished
     *     within the window; {@link Admission#join}: it is running
     */
    Mono<Admission> admit(TurnKey turn);

    /**
     * The owned turn finished and its events are published: keeps them for the window and hands them to
     * the turns that joined. Never fails the turn (an implementation logs what it cannot record).
     *
     * @param events the turn's events ({@code tool_result}s, media {@code user_message}s,
     *     {@code turn_completed}; no live events), in order
     */
    Mono<Void> complete(TurnKey turn, List<OutboundEvent> events);

    /** The owned turn ended without publishing its events: joined turns admit again, and so may the next. */
    void release(TurnKey turn);

    /** A ledger that records nothing: every turn runs (idempotent turns off, or handled by the bus itself). */
    static TurnLedger none() {
        return NoTurnLedger.INSTANCE;
    }

    /** What the executor does with an arriving turn. */
    sealed interface Admission permits Admission.Run, Admission.Replay, Admission.Join {

        /** Run it: the caller owns the turn until it calls {@link #complete} or {@link #release}. */
        static Admission run() {
            return Run.INSTANCE;
        }

        /** It finished: publish these recorded events again, marked replayed (none: they were not kept). */
        static Admission replay(List<OutboundEvent> events) {
            return new Replay(List.copyOf(events));
        }

        /**
         * It is running: wait for that run. The Mono emits its events when it completes, and completes
         * empty when it was released (then the turn is admitted again).
         */
        static Admission join(Mono<List<OutboundEvent>> finished) {
            return new Join(Objects.requireNonNull(finished, "finished"));
        }

        /** See {@link Admission#run()}. */
        final class Run implements Admission {
            static final Run INSTANCE = new Run();

            private Run() {
            }

            @Override
            public String toString() {
                return "Run";
            }
        }

        /** See {@link Admission#replay}. @param events the recorded events */
        record Replay(List<OutboundEvent> events) implements Admission {
        }

        /** See {@link Admission#join}. @param finished the run's events, or empty when it was released */
        record Join(Mono<List<OutboundEvent>> finished) implements Admission {
        }
    }
}
