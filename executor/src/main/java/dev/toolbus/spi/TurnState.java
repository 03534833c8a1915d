package dev.toolbus.spi;

/**
 * What a turn's outcome depends on beyond its own run, kept where every instance that may take the
 * turn next finds it: five facets, each its own small SPI. A bus brings one through
 * {@link ToolBus#turnState()} (Redis keeps it in the bus's Redis, Kafka in a compacted state topic
 * co-partitioned with its calls); without one, and for callers of {@code ToolExecutor.handle}, the
 * executor keeps it in memory ({@code ToolExecutor.Builder.turnState}), where one process behaves as a
 * cluster would.
 *
 * <ul>
 *   <li>{@link #ledger()}: finished and running turns (idempotent turns);</li>
 *   <li>{@link #journal()}: which calls that are not retry-safe started and what they ended with;</li>
 *   <li>{@link #requests()}: approval requests and questions by deterministic id, and their answers;</li>
 *   <li>{@link #grants()}: {@code approve_session} grants;</li>
 *   <li>{@link #cutResults()}: the full texts behind {@code read_tool_result}.</li>
 * </ul>
 * Every record is bound to the principal of its turn ({@link Principal}), bounded in bytes, expires,
 * and is counted in the gauges {@code toolbus.state.records} and {@code toolbus.state.bytes} (tag
 * {@code facet}). A facet that is {@code null} is served by the executor's in-memory one (a bus may
 * bring some facets and not others). The abstract contract suite in {@code toolbus-bus-tck}
 * ({@code AbstractTurnStateTests}) checks an implementation.
 *
 * <pre>{@code
 * TurnState state = TurnState.builder().ledger(myLedger).journal(myJournal).build();
 * }</pre>
 */
public interface TurnState {

    /** Finished and running turns, or {@code null} for the executor's in-memory ledger. */
    TurnLedger ledger();

    /** The call journal, or {@code null} for the executor's in-memory one. */
    CallJournal journal();

    /** Approval requests, questions and their answers, or {@code null} for the executor's in-memory ones. */
    ControlRequests requests();

    /** Session grants, or {@code null} for the executor's in-memory ones. */
    SessionGrants grants();

    /** Full texts of cut results, or {@code null} for the executor's in-memory ones. */
    CutResults cutResults();

    /** A builder of a turn state from its facets (each {@code null} until set). */
    static Builder builder() {
        return new Builder();
    }

    /** Builder of a {@link TurnState} from facets; a facet not set is the executor's in-memory one. */
    final class Builder {
        private TurnLedger ledger;
        private CallJournal journal;
        private ControlRequests requests;
        private SessionGrants grants;
        private CutResults cutResults;

        private Builder() {
        }

        /** Starts from the facets of another state. */
        public Builder from(TurnState state) {
            ledger = state.ledger();
            journal = state.journal();
            requests = state.requests();
            grants = state.grants();
            cutResults = state.cutResults();
            return this;
        }

        /** The ledger of idempotent turns. */
        public Builder ledger(TurnLedger v) {
            ledger = v;
            return this;
        }

        /** The call journal. */
        public Builder journal(CallJournal v) {
            journal = v;
            return this;
        }

        /** Approval requests and questions. */
        public Builder requests(ControlRequests v) {
            requests = v;
            return this;
        }

        /** Session grants. */
        public Builder grants(SessionGrants v) {
            grants = v;
            return this;
        }

        /** Cut results. */
        public Builder cutResults(CutResults v) {
            cutResults = v;
            return this;
        }

        /** The state. */
        public TurnState build() {
            return new Facets(ledger, journal, requests, grants, cutResults);
        }
    }

    /** A state made of given facets. */
    record Facets(TurnLedger ledger, CallJournal journal, ControlRequests requests, SessionGrants grants,
                  CutResults cutResults) implements TurnState {
    }
}
