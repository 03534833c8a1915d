package dev.toolbus.executor.state;

import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.TurnLedger;
import dev.toolbus.spi.TurnState;
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
 * runs and recorded after. Before a turn: the {@link TurnLedger} of idempotent turns (a turn that
 * finished within the window is answered with its recorded events, marked replayed; a turn that is
 * running is joined; any other runs and is recorded once its events are out). The other facets of the
 * {@link TurnState} (journal, requests, grants, cut results) are used by the calls while they run.
 *
 * <p>Not API: the one public entry of this package's machinery. The executor makes one per executor
 * (over the state of {@code ToolExecutor.Builder.turnState}, or an {@link InMemoryTurnState}) and one
 * {@link OnBus} per bus it runs on; embedders configure it through that builder. It may change without
 * notice.
 */
public final class TurnStateStep {

    private final TurnState state;
    private final RepeatedTurnMetrics repeats;

    private TurnStateStep(TurnState state, RepeatedTurnMetrics repeats) {
        this.state = state;
        this.repeats = repeats;
    }

    /**
     * The step over a state whose every facet is set, counting repeated turns in {@code meters}
     * ({@code toolbus.turns.repeated}).
     */
    public static TurnStateStep create(TurnState state, MeterRegistry meters) {
        return new TurnStateStep(complete(Objects.requireNonNull(state, "state")),
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

    /** {@code given}'s facets, each that is {@code null} taken from {@code fallback}. */
    public static TurnState overlay(TurnState given, TurnState fallback) {
        if (given == null) {
            return fallback;
        }
        return TurnState.builder()
                .ledger(given.ledger() != null ? given.ledger() : fallback.ledger())
                .journal(given.journal() != null ? given.journal() : fallback.journal())
                .requests(given.requests() != null ? given.requests() : fallback.requests())
                .grants(given.grants() != null ? given.grants() : fallback.grants())
                .cutResults(given.cutResults() != null ? given.cutResults() : fallback.cutResults())
                .build();
    }

    private static TurnState complete(TurnState s) {
        Objects.requireNonNull(s.ledger(), "ledger");
        Objects.requireNonNull(s.journal(), "journal");
        Objects.requireNonNull(s.requests(), "requests");
        Objects.requireNonNull(s.grants(), "grants");
        Objects.requireNonNull(s.cutResults(), "cutResults");
        return s;
    }

    /** This step's state (used by callers of {@code ToolExecutor.handle} and buses without their own). */
    public TurnState state() {
        return state;
    }

    /** This step's ledger. */
    public TurnLedger ledger() {
        return state.ledger();
    }

    /**
     * A turn answered to its caller ({@code ToolExecutor.handle}): its own events when it runs, the
     * recorded ones (marked replayed) when it finished before or joined a run.
     *
     * @param principal who sent it
     * @param run runs the turn
     */
    public Flux<OutboundEvent> forCaller(ToolCallsEvent turn, Principal principal, Supplier<Flux<OutboundEvent>> run) {
        return IdempotentTurns.forCaller(state.ledger(), repeats, principal, turn, run);
    }

    /**
     * The step for one bus: the bus's own facets where it brings them ({@code ToolBus.turnState()}), else
     * this step's. Keeps each stream's turns in arrival order through their admission.
     *
     * @param busState the bus's state, or {@code null}
     * @param principal who sends the bus's turns
     */
    public OnBus onBus(TurnState busState, Principal principal) {
        return new OnBus(overlay(busState, state), principal, repeats);
    }

    /** The turn-state step of one bus. */
    public static final class OnBus {
        private final TurnState state;
        private final Principal principal;
        private final RepeatedTurnMetrics repeats;
        private final AdmissionOrder order = new AdmissionOrder();

        private OnBus(TurnState state, Principal principal, RepeatedTurnMetrics repeats) {
            this.state = state;
            this.principal = Objects.requireNonNull(principal, "principal");
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
            TurnLedger ledger = state.ledger();
            if (ledger == TurnLedger.none()) {
                // nothing to admit: each turn reaches its lane as it is subscribed, in arrival order
                return run.apply(publish);
            }
            return order.inOrder(turn.streamId(), admitted -> IdempotentTurns.forBus(ledger, repeats, principal, turn,
                    publish, run, admitted));
        }

        /** The state this bus's turns use. */
        public TurnState state() {
            return state;
        }

        /** Who sends this bus's turns. */
        public Principal principal() {
            return principal;
        }

        /** The ledger this bus's turns go through. */
        public TurnLedger ledger() {
            return state.ledger();
        }

        /** Streams with an admission under way (diagnostics). */
        int pendingAdmissions() {
            return order.pending();
        }
    }
}
