package dev.toolbus.executor.state;

import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.spi.TurnLedger;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The turn-state step: what a turn's outcome depends on beyond its own run, consulted before the turn
 * runs and recorded after. Today that is the {@link TurnLedger} of idempotent turns: a turn that
 * finished within the window is answered with its recorded events (marked replayed), a turn that is
 * running is joined, any other runs and is recorded once its events are out.
 *
 * <p>Not API: the one public entry of this package's machinery. The executor makes one per executor
 * (with the ledger of {@code ToolExecutor.Builder.idempotency} or {@code turnLedger}) and one
 * {@link OnBus} per bus it runs on; embedders configure it through that builder. It may change without
 * notice.
 */
public final class TurnStateStep {

    private final TurnLedger ledger;
    private final RepeatedTurnMetrics repeats;

    private TurnStateStep(TurnLedger ledger, RepeatedTurnMetrics repeats) {
        this.ledger = ledger;
        this.repeats = repeats;
    }

    /**
     * The step over a ledger, counting repeated turns in {@code meters}
     * ({@code toolbus.turns.repeated}).
     */
    public static TurnStateStep create(TurnLedger ledger, MeterRegistry meters) {
        return new TurnStateStep(Objects.requireNonNull(ledger, "ledger"),
                RepeatedTurnMetrics.register(Objects.requireNonNull(meters, "meters")));
    }

    /**
     * The in-memory ledger with these bounds, on the given clock (nanoseconds); {@link TurnLedger#none()}
     * when the settings turn idempotent turns off.
     */
    public static TurnLedger inMemoryLedger(TurnLedgerSettings settings, LongSupplier nanoClock) {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(nanoClock, "nanoClock");
        return settings.enabled() ? new MemoryTurnLedger(settings, nanoClock) : TurnLedger.none();
    }

    /** This step's ledger (used by callers of {@code ToolExecutor.handle} and buses without their own). */
    public TurnLedger ledger() {
        return ledger;
    }

    /**
     * A turn answered to its caller ({@code ToolExecutor.handle}): its own events when it runs, the
     * recorded ones (marked replayed) when it finished before or joined a run.
     *
     * @param run runs the turn
     */
    public Flux<OutboundEvent> forCaller(ToolCallsEvent turn, Supplier<Flux<OutboundEvent>> run) {
        return IdempotentTurns.forCaller(ledger, repeats, turn, run);
    }

    /**
     * The step for one bus: the bus's own ledger when it brings one ({@code ToolBus.turnLedger()}), else
     * this step's. Keeps each stream's turns in arrival order through their admission.
     *
     * @param busLedger the bus's ledger, or {@code null}
     */
    public OnBus onBus(TurnLedger busLedger) {
        return new OnBus(busLedger != null ? busLedger : ledger, repeats);
    }

    /** The turn-state step of one bus. */
    public static final class OnBus {
        private final TurnLedger ledger;
        private final RepeatedTurnMetrics repeats;
        private final AdmissionOrder order = new AdmissionOrder();

        private OnBus(TurnLedger ledger, RepeatedTurnMetrics repeats) {
            this.ledger = ledger;
            this.repeats = repeats;
        }

        /**
         * A turn taken from the bus: replayed, joined, or run with {@code run} (given the publish function
         * to use) and recorded. With {@link TurnLedger#none()} each turn just runs, in arrival order.
         *
         * @param publish the bus's publish
         * @param run runs the turn with the publish function it is given
         */
        public Mono<Void> run(ToolCallsEvent turn, Function<List<OutboundEvent>, Mono<Void>> publish,
                              Function<Function<List<OutboundEvent>, Mono<Void>>, Mono<Void>> run) {
            if (ledger == TurnLedger.none()) {
                // nothing to admit: each turn reaches its lane as it is subscribed, in arrival order
                return run.apply(publish);
            }
            return order.inOrder(turn.streamId(), admitted -> IdempotentTurns.forBus(ledger, repeats, turn, publish,
                    run, admitted));
        }

        /** The ledger this bus's turns go through. */
        public TurnLedger ledger() {
            return ledger;
        }

        /** Streams with an admission under way (diagnostics). */
        int pendingAdmissions() {
            return order.pending();
        }
    }
}
