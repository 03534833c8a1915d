package dev.toolbus.executor.state;

import dev.toolbus.metrics.ToolMetrics;
import dev.toolbus.spi.CallJournal;
import dev.toolbus.spi.ControlRequests;
import dev.toolbus.spi.CutResults;
import dev.toolbus.spi.SessionGrants;
import dev.toolbus.spi.TurnLedger;
import dev.toolbus.spi.TurnState;
import dev.toolbus.spi.TurnStateSettings;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * The turn state in memory: what the in-memory bus, stdio, the gateway and embedded executors use, and
 * what every executor uses for a facet its bus does not bring. Each facet is a Caffeine cache (or, for
 * finished turns, a bounded window) expiring on the given clock, bounded in bytes and entries as
 * {@link TurnStateSettings} and {@link TurnLedgerSettings} say, and gauged
 * ({@code toolbus.state.records}, {@code toolbus.state.bytes}, tag {@code facet}).
 *
 * <p>One object is one store: two executors built on the same {@code InMemoryTurnState} behave as two
 * instances of a cluster would (a turn dropped by one and run again by the other finds its journal,
 * answers, grants and cut results).
 *
 * <pre>{@code
 * InMemoryTurnState state = InMemoryTurnState.builder().settings(TurnStateSettings.DEFAULTS).build();
 * ToolExecutor executor = ToolExecutor.builder().turnState(state).build();
 * }</pre>
 */
public final class InMemoryTurnState implements TurnState {

    private final TurnLedger ledger;
    private final MemoryCallJournal journal;
    private final MemoryControlRequests requests;
    private final MemorySessionGrants grants;
    private final MemoryCutResults cutResults;

    private InMemoryTurnState(Builder b) {
        this.ledger = b.ledger.enabled() ? new MemoryTurnLedger(b.ledger, b.nanoClock) : TurnLedger.none();
        this.journal = new MemoryCallJournal(b.settings, b.nanoClock);
        this.requests = new MemoryControlRequests(b.settings, b.nanoClock, b.epochMillis);
        this.grants = new MemorySessionGrants(b.settings, b.nanoClock);
        this.cutResults = new MemoryCutResults(b.settings, b.nanoClock);
        if (b.meters != null) {
            bind(b.meters);
        }
    }

    /** A builder with the defaults (system clocks, no meters). */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public TurnLedger ledger() {
        return ledger;
    }

    @Override
    public CallJournal journal() {
        return journal;
    }

    @Override
    public ControlRequests requests() {
        return requests;
    }

    @Override
    public SessionGrants grants() {
        return grants;
    }

    @Override
    public CutResults cutResults() {
        return cutResults;
    }

    /**
     * Registers this state's gauges ({@code toolbus.state.records} and {@code toolbus.state.bytes} per
     * facet) in the registry; a registry that has them already keeps the first.
     */
    public void bind(MeterRegistry meters) {
        Objects.requireNonNull(meters, "meters");
        if (ledger instanceof MemoryTurnLedger l) {
            gauge(meters, "ledger", l, x -> x.size(), x -> x.weight());
        }
        gauge(meters, "journal", journal, MemoryCallJournal::size, MemoryCallJournal::bytes);
        gauge(meters, "requests", requests, MemoryControlRequests::size, MemoryControlRequests::bytes);
        gauge(meters, "grants", grants, MemorySessionGrants::size, g -> g.size() * MemorySessionGrants.GRANT_BYTES);
        gauge(meters, "cut_results", cutResults, MemoryCutResults::size, MemoryCutResults::bytes);
    }

    private static <T> void gauge(MeterRegistry meters, String facet, T facetObject, ToDoubleFunction<T> records,
                                  ToDoubleFunction<T> bytes) {
        Gauge.builder(ToolMetrics.STATE_RECORDS, facetObject, records).tag("facet", facet)
                .description("Records the turn state keeps").register(meters);
        Gauge.builder(ToolMetrics.STATE_BYTES, facetObject, bytes).tag("facet", facet).baseUnit("bytes")
                .description("Estimated bytes of the records the turn state keeps").register(meters);
    }

    /** Builder of {@link InMemoryTurnState}. */
    public static final class Builder {
        private TurnStateSettings settings = TurnStateSettings.DEFAULTS;
        private TurnLedgerSettings ledger = TurnLedgerSettings.DEFAULTS;
        private LongSupplier nanoClock = System::nanoTime;
        private LongSupplier epochMillis = System::currentTimeMillis;
        private MeterRegistry meters;

        private Builder() {
        }

        /** Bounds and lifetimes of the journal, requests, grants and cut results (default {@link TurnStateSettings#DEFAULTS}). */
        public Builder settings(TurnStateSettings v) {
            settings = Objects.requireNonNull(v, "settings");
            return this;
        }

        /** Bounds of finished turns (default {@link TurnLedgerSettings#DEFAULTS}; {@link TurnLedgerSettings#OFF}: none kept). */
        public Builder ledger(TurnLedgerSettings v) {
            ledger = Objects.requireNonNull(v, "ledger");
            return this;
        }

        /** The clock of TTLs, in nanoseconds (default {@code System.nanoTime}; the executor's in tests). */
        public Builder nanoClock(LongSupplier v) {
            nanoClock = Objects.requireNonNull(v, "nanoClock");
            return this;
        }

        /**
         * The epoch-ms clock that request expiries ({@code expires_at_ms}) are compared with (default
         * {@code System.currentTimeMillis}; the executor's timer in tests).
         */
        public Builder epochMillis(LongSupplier v) {
            epochMillis = Objects.requireNonNull(v, "epochMillis");
            return this;
        }

        /** Where the gauges go (default: none; {@link #bind} later). */
        public Builder meters(MeterRegistry v) {
            meters = Objects.requireNonNull(v, "meters");
            return this;
        }

        /** The state. */
        public InMemoryTurnState build() {
            return new InMemoryTurnState(this);
        }
    }
}
