package dev.toolbus.bus.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.InputAction;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.Risk;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.spi.CallJournal;
import dev.toolbus.spi.CallKey;
import dev.toolbus.spi.ControlAnswer;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.ControlRequests.AnswerOutcome;
import dev.toolbus.spi.CutKey;
import dev.toolbus.spi.CutResults;
import dev.toolbus.spi.GrantKey;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.RequestState;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.spi.TurnLedger;
import dev.toolbus.spi.TurnState;
import dev.toolbus.spi.TurnStateSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * The contract of a {@link TurnState} (docs: the Javadoc of each facet): the call journal's transitions,
 * first answer wins, held answers, principals, expiry and bounds of every facet. An implementation
 * subclasses it with a fresh store per test ({@link #newState}); a store on real time (Redis, Kafka)
 * leaves {@link #advance} alone and the expiry tests wait for the TTLs, which the suite keeps short.
 * Every test uses its own stream id, so a store shared by the tests of one class is fine.
 */
public abstract class AbstractTurnStateTests {

    /** How long a test waits for a store on real time. */
    protected static final Duration WAIT = Duration.ofSeconds(20);

    /** A {@code master} token that answers for lower principals (the default). */
    protected static final Principal MASTER = Principal.token("master").build();
    /** A {@code member} token. */
    protected static final Principal MEMBER = Principal.token("member").maxPermission("member").build();
    /** An {@code owner} token that answers only for itself. */
    protected static final Principal OWN_ONLY = Principal.token("own-only").maxPermission("owner")
            .approves(Principal.Approves.OWN).build();

    /** This test's stream (unique per test). */
    protected final String stream = "s-" + UUID.randomUUID();

    /**
     * A fresh store with these settings; stores made by one test share nothing with other tests' (or use
     * their stream ids only).
     */
    protected abstract TurnState newState(TurnStateSettings settings);

    /** Another instance's view of the same store (default: the same object). */
    protected TurnState peer(TurnState state) {
        return state;
    }

    /**
     * Moves the store's clock on by {@code d} (a store on virtual time); a store on real time does
     * nothing, and the suite then waits.
     */
    protected void advance(Duration d) {
    }

    /** The store's clock in epoch milliseconds (what request expiries are compared with). */
    protected long nowMs() {
        return System.currentTimeMillis();
    }

    /** A gauge's value for a facet of this store, or {@code null} when the implementation does not expose it here. */
    protected Double gauge(TurnState state, String name, String facet) {
        return null;
    }

    /** Small bounds and short lifetimes, so the bound and expiry tests stay quick on real time. */
    protected TurnStateSettings small() {
        return TurnStateSettings.builder().recordTtl(Duration.ofSeconds(2)).heldPerStream(3).heldBytesPerStream(8 * 1024)
                .cutResultsPerStream(3).cutResultsTtl(Duration.ofSeconds(2)).maxRecordedBytes(4 * 1024).build();
    }

    // the call journal

    @Test
    void journal_aWaveOfNewCalls_isMarkedStarted_andSeenStartedByAnotherInstance() {
        TurnState state = newState(small());
        CallKey a = call(MASTER, "t1", "a");
        CallKey b = call(MASTER, "t1", "b");
        Map<CallKey, CallJournal.Entry> first = state.journal().begin(List.of(a, b)).block(WAIT);
        assertThat(first).containsEntry(a, CallJournal.Entry.fresh()).containsEntry(b, CallJournal.Entry.fresh());
        Map<CallKey, CallJournal.Entry> again = peer(state).journal().begin(List.of(a, b)).block(WAIT);
        assertThat(again).containsEntry(a, CallJournal.Entry.started()).containsEntry(b, CallJournal.Entry.started());
    }

    @Test
    void journal_aFinishedCall_isFoundFinished_withItsEventsInOrder() {
        TurnState state = newState(small());
        CallKey a = call(MASTER, "t1", "a");
        state.journal().begin(List.of(a)).block(WAIT);
        List<OutboundEvent> events = List.of(result(a, "done"), result(a, "second"));
        state.journal().finish(Map.of(a, events)).block(WAIT);
        CallJournal.Entry e = peer(state).journal().begin(List.of(a)).block(WAIT).get(a);
        assertThat(e.isFinished()).isTrue();
        assertThat(e.events()).extracting(x -> ((ToolResultEvent) x).content()).containsExactly("done", "second");
        assertThat(e.events().get(0)).isEqualTo(events.get(0));
    }

    @Test
    void journal_oneWave_getsOneEntryPerCall_whateverEachWasBefore() {
        TurnState state = newState(small());
        CallKey started = call(MASTER, "t1", "started");
        CallKey finished = call(MASTER, "t1", "finished");
        CallKey fresh = call(MASTER, "t1", "fresh");
        state.journal().begin(List.of(started, finished)).block(WAIT);
        state.journal().finish(Map.of(finished, List.of(result(finished, "ok")))).block(WAIT);
        Map<CallKey, CallJournal.Entry> wave = state.journal().begin(List.of(started, finished, fresh)).block(WAIT);
        assertThat(wave).hasSize(3);
        assertThat(wave.get(started).isStarted()).isTrue();
        assertThat(wave.get(finished).isFinished()).isTrue();
        assertThat(wave.get(fresh).isNew()).isTrue();
    }

    @Test
    void journal_ofConcurrentBeginsOfOneCall_exactlyOneIsNew() throws Exception {
        TurnState state = newState(small());
        CallKey a = call(MASTER, "t1", "a");
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<CallJournal.Entry>> all = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                TurnState view = i % 2 == 0 ? state : peer(state);
                all.add(pool.submit(() -> view.journal().begin(List.of(a)).block(WAIT).get(a)));
            }
            int fresh = 0;
            for (Future<CallJournal.Entry> f : all) {
                CallJournal.Entry e = f.get();
                fresh += e.isNew() ? 1 : 0;
                assertThat(e.isNew() || e.isStarted()).isTrue();
            }
            assertThat(fresh).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void journal_theFirstFinishWins() {
        TurnState state = newState(small());
        CallKey a = call(MASTER, "t1", "a");
        state.journal().begin(List.of(a)).block(WAIT);
        state.journal().finish(Map.of(a, List.of(result(a, "first")))).block(WAIT);
        peer(state).journal().finish(Map.of(a, List.of(result(a, "second")))).block(WAIT);
        CallJournal.Entry e = state.journal().begin(List.of(a)).block(WAIT).get(a);
        assertThat(((ToolResultEvent) e.events().get(0)).content()).isEqualTo("first");
    }

    @Test
    void journal_eventsAboveTheBound_areRecordedWithoutThem_theCallStillFinished() {
        TurnState state = newState(small());
        CallKey a = call(MASTER, "t1", "a");
        state.journal().begin(List.of(a)).block(WAIT);
        state.journal().finish(Map.of(a, List.of(result(a, "x".repeat(20_000))))).block(WAIT);
        CallJournal.Entry e = state.journal().begin(List.of(a)).block(WAIT).get(a);
        assertThat(e.isFinished()).isTrue();
        assertThat(e.events()).isEmpty();
    }

    @Test
    void journal_theSameIdsFromAnotherPrincipal_areAnotherCall() {
        TurnState state = newState(small());
        state.journal().begin(List.of(call(MASTER, "t1", "a"))).block(WAIT);
        CallKey theirs = call(MEMBER, "t1", "a");
        assertThat(state.journal().begin(List.of(theirs)).block(WAIT).get(theirs).isNew()).isTrue();
    }

    @Test
    void journal_recordsExpireAfterTheRecordTtl() {
        TurnState state = newState(small());
        CallKey a = call(MASTER, "t1", "a");
        state.journal().begin(List.of(a)).block(WAIT);
        advance(Duration.ofSeconds(3));
        CallKey probe = call(MASTER, "t1", "a");
        await().atMost(WAIT).pollInterval(Duration.ofMillis(250))
                .until(() -> state.journal().begin(List.of(probe)).block(WAIT).get(probe).isNew());
    }

    @Test
    void journal_aBeginPastTheBound_fails_andKeepsTheRecordsOfStartedCalls() {
        TurnState state = newState(small().toBuilder().journalMaxBytes(1024).journalMaxEntries(2).build());
        CallKey a = call(MASTER, "t1", "a");
        CallKey b = call(MASTER, "t1", "b");
        state.journal().begin(List.of(a, b)).block(WAIT);
        List<CallKey> flood = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            flood.add(call(MASTER, "t2", "c" + i));
        }
        assertThatThrownBy(() -> state.journal().begin(flood).block(WAIT)).isInstanceOf(RuntimeException.class);
        Map<CallKey, CallJournal.Entry> kept = state.journal().begin(List.of(a, b)).block(WAIT);
        assertThat(kept.get(a).isStarted()).isTrue();
        assertThat(kept.get(b).isStarted()).isTrue();
    }

    // approval requests and questions

    @Test
    void requests_aRequestRaisedAgain_isPending_withItsFirstExpiry() {
        TurnState state = newState(small());
        ControlRequest r = approval(MASTER, "t1", 60_000, "a", "b");
        RequestState first = state.requests().raise(r).block(WAIT);
        assertThat(first.status()).isEqualTo(RequestState.Status.NEW);
        assertThat(first.answers()).isEmpty();
        ControlRequest later = approval(MASTER, "t1", 120_000, "b", "a");
        assertThat(later.id()).isEqualTo(r.id());
        RequestState again = peer(state).requests().raise(later).block(WAIT);
        assertThat(again.status()).isEqualTo(RequestState.Status.PENDING);
        assertThat(again.request().expiresAtMs()).isEqualTo(r.expiresAtMs());
        assertThat(again.request().event()).isEqualTo(r.event());
    }

    @Test
    void requests_anAnswerRecordedOnOneInstance_isSignalled_andFoundByTheOwner() {
        TurnState owner = newState(small());
        TurnState other = peer(owner);
        List<String> signalled = new CopyOnWriteArrayList<>();
        Disposable listening = owner.requests().answered().subscribe(signalled::add);
        try {
            ControlRequest r = approval(MEMBER, "t1", 60_000, "a");
            owner.requests().raise(r).block(WAIT);
            assertThat(other.requests().answer(approve(MEMBER, r, null), Duration.ofMinutes(1)).block(WAIT))
                    .isEqualTo(AnswerOutcome.RECORDED);
            await().atMost(WAIT).until(() -> signalled.contains(r.id()));
            RequestState found = owner.requests().find(r.id()).block(WAIT);
            assertThat(found.status()).isEqualTo(RequestState.Status.ANSWERED);
            assertThat(found.answer(r.calls().get(0)).principal()).isEqualTo(MEMBER);
            assertThat(owner.requests().raise(r).block(WAIT).status()).isEqualTo(RequestState.Status.ANSWERED);
        } finally {
            listening.dispose();
        }
    }

    @Test
    void requests_theFirstAnswerWins() {
        TurnState state = newState(small());
        ControlRequest r = approval(MEMBER, "t1", 60_000, "a", "b");
        state.requests().raise(r).block(WAIT);
        assertThat(state.requests().answer(deny(MEMBER, r, null), Duration.ofMinutes(1)).block(WAIT))
                .isEqualTo(AnswerOutcome.RECORDED);
        assertThat(peer(state).requests().answer(approve(MASTER, r, null), Duration.ofMinutes(1)).block(WAIT))
                .isEqualTo(AnswerOutcome.ALREADY_ANSWERED);
        RequestState s = state.requests().find(r.id()).block(WAIT);
        assertThat(s.answers().values()).allSatisfy(a ->
                assertThat(((ApprovalResponseEvent) a.response()).decision()).isEqualTo(ApprovalDecision.DENY));
    }

    @Test
    void requests_anAnswerNamingACall_answersOnlyThatCall_theNextAnswersTheRest() {
        TurnState state = newState(small());
        ControlRequest r = approval(MEMBER, "t1", 60_000, "a", "b");
        state.requests().raise(r).block(WAIT);
        CallKey a = r.calls().get(0);
        CallKey b = r.calls().get(1);
        assertThat(state.requests().answer(deny(MEMBER, r, "b"), Duration.ofMinutes(1)).block(WAIT))
                .isEqualTo(AnswerOutcome.RECORDED);
        RequestState partly = state.requests().find(r.id()).block(WAIT);
        assertThat(partly.status()).isEqualTo(RequestState.Status.PENDING);
        assertThat(partly.answers()).containsOnlyKeys(b);
        assertThat(state.requests().answer(deny(MEMBER, r, "b"), Duration.ofMinutes(1)).block(WAIT))
                .isEqualTo(AnswerOutcome.ALREADY_ANSWERED);
        assertThat(state.requests().answer(approve(MEMBER, r, null), Duration.ofMinutes(1)).block(WAIT))
                .isEqualTo(AnswerOutcome.RECORDED);
        RequestState all = state.requests().find(r.id()).block(WAIT);
        assertThat(all.status()).isEqualTo(RequestState.Status.ANSWERED);
        assertThat(decision(all.answer(a))).isEqualTo(ApprovalDecision.APPROVE);
        assertThat(decision(all.answer(b))).isEqualTo(ApprovalDecision.DENY);
    }

    @Test
    void requests_onlyAnAllowedPrincipal_answers() {
        TurnState state = newState(small());
        ControlRequest masters = approval(MASTER, "t1", 60_000, "a");
        state.requests().raise(masters).block(WAIT);
        assertThat(state.requests().answer(approve(MEMBER, masters, null), Duration.ofMinutes(1)).block(WAIT))
                .as("a member answering a master's request").isEqualTo(AnswerOutcome.NOT_ALLOWED);
        assertThat(state.requests().find(masters.id()).block(WAIT).answers()).isEmpty();
        ControlRequest members = approval(MEMBER, "t2", 60_000, "a");
        state.requests().raise(members).block(WAIT);
        assertThat(state.requests().answer(approve(OWN_ONLY, members, null), Duration.ofMinutes(1)).block(WAIT))
                .as("a higher principal that answers only for itself").isEqualTo(AnswerOutcome.NOT_ALLOWED);
        assertThat(state.requests().answer(approve(MASTER, members, null), Duration.ofMinutes(1)).block(WAIT))
                .as("a higher principal").isEqualTo(AnswerOutcome.RECORDED);
        assertThat(state.requests().answer(approve(MASTER, masters, null), Duration.ofMinutes(1)).block(WAIT))
                .as("the same principal").isEqualTo(AnswerOutcome.RECORDED);
    }

    @Test
    void requests_anAnswerOnAnotherStream_forACallNotAsked_orOfTheOtherKind_isUnknown() {
        TurnState state = newState(small());
        ControlRequest r = approval(MASTER, "t1", 60_000, "a");
        state.requests().raise(r).block(WAIT);
        ControlAnswer elsewhere = ControlAnswer.approval(MASTER,
                new ApprovalResponseEvent(stream + "-other", r.id(), ApprovalDecision.APPROVE), null);
        assertThat(state.requests().answer(elsewhere, Duration.ofMinutes(1)).block(WAIT)).isEqualTo(AnswerOutcome.UNKNOWN);
        assertThat(state.requests().answer(approve(MASTER, r, "zz"), Duration.ofMinutes(1)).block(WAIT))
                .isEqualTo(AnswerOutcome.UNKNOWN);
        ControlAnswer asInput = ControlAnswer.input(MASTER, new InputResponseEvent(stream, r.id(), InputAction.ACCEPT, null));
        assertThat(state.requests().answer(asInput, Duration.ofMinutes(1)).block(WAIT)).isEqualTo(AnswerOutcome.UNKNOWN);
        assertThat(state.requests().find(r.id()).block(WAIT).answers()).isEmpty();
    }

    @Test
    void requests_anAnswerAfterTheRequestExpired_isUnknown() {
        TurnState state = newState(small());
        ControlRequest r = approval(MASTER, "t1", 1_000, "a");
        state.requests().raise(r).block(WAIT);
        advance(Duration.ofMillis(1_500));
        await().atMost(WAIT).pollInterval(Duration.ofMillis(250)).until(() -> nowMs() > r.expiresAtMs() + 100);
        assertThat(state.requests().answer(approve(MASTER, r, null), Duration.ofMinutes(1)).block(WAIT))
                .isEqualTo(AnswerOutcome.UNKNOWN);
    }

    @Test
    void requests_aClosedRequest_refusesLaterAnswers_andKeepsTheAnswersThatWonBefore() {
        TurnState state = newState(small());
        ControlRequest r = approval(MASTER, "t1", 60_000, "a", "b");
        state.requests().raise(r).block(WAIT);
        state.requests().answer(approve(MASTER, r, "a"), Duration.ofMinutes(1)).block(WAIT);
        RequestState closed = state.requests().close(r.id()).block(WAIT);
        assertThat(closed.status()).isEqualTo(RequestState.Status.CLOSED);
        assertThat(closed.answers()).containsOnlyKeys(r.calls().get(0));
        assertThat(peer(state).requests().answer(approve(MASTER, r, null), Duration.ofMinutes(1)).block(WAIT))
                .isEqualTo(AnswerOutcome.UNKNOWN);
        assertThat(state.requests().raise(r).block(WAIT).status()).isEqualTo(RequestState.Status.CLOSED);

        ControlRequest answered = approval(MASTER, "t2", 60_000, "a");
        state.requests().raise(answered).block(WAIT);
        state.requests().answer(approve(MASTER, answered, null), Duration.ofMinutes(1)).block(WAIT);
        assertThat(state.requests().close(answered.id()).block(WAIT).status()).isEqualTo(RequestState.Status.ANSWERED);
        assertThat(state.requests().close("ap-0000000000000000").block(WAIT)).isNull();
    }

    @Test
    void requests_anAnswerBeforeItsRequest_isHeld_andTheFirstAllowedOneIsAppliedWhenItIsRaised() {
        TurnState state = newState(small());
        ControlRequest r = approval(MASTER, "t1", 60_000, "a");
        assertThat(peer(state).requests().answer(deny(MEMBER, r, null), Duration.ofMinutes(1)).block(WAIT))
                .isEqualTo(AnswerOutcome.HELD);
        assertThat(peer(state).requests().answer(approve(MASTER, r, null), Duration.ofMinutes(1)).block(WAIT))
                .isEqualTo(AnswerOutcome.HELD);
        RequestState raised = state.requests().raise(r).block(WAIT);
        assertThat(raised.status()).isEqualTo(RequestState.Status.ANSWERED);
        assertThat(raised.answer(r.calls().get(0)).principal()).as("the member's answer is not allowed").isEqualTo(MASTER);
        assertThat(decision(raised.answer(r.calls().get(0)))).isEqualTo(ApprovalDecision.APPROVE);
    }

    @Test
    void requests_heldAnswers_areBoundedPerStream_inCountAndBytes() {
        TurnState state = newState(small());
        for (int i = 0; i < 3; i++) {
            assertThat(state.requests().answer(approve(MASTER, approval(MASTER, "t" + i, 60_000, "a"), null),
                    Duration.ofMinutes(1)).block(WAIT)).isEqualTo(AnswerOutcome.HELD);
        }
        assertThat(state.requests().answer(approve(MASTER, approval(MASTER, "t9", 60_000, "a"), null),
                Duration.ofMinutes(1)).block(WAIT)).isEqualTo(AnswerOutcome.HOLD_FULL);
        String other = stream + "-b";
        ControlRequest big = approval(MASTER, other, "t1", 60_000, "a");
        ControlAnswer large = ControlAnswer.input(MASTER, new InputResponseEvent(other, "in-0123456789abcdef",
                InputAction.ACCEPT, Json.mapper().createObjectNode().put("text", "y".repeat(20_000))));
        assertThat(state.requests().answer(large, Duration.ofMinutes(1)).block(WAIT)).isEqualTo(AnswerOutcome.HOLD_FULL);
        assertThat(state.requests().answer(approve(MASTER, big, null), Duration.ofMinutes(1)).block(WAIT))
                .as("another stream has its own bound").isEqualTo(AnswerOutcome.HELD);
    }

    @Test
    void requests_heldAnswers_expireAfterTheirHold() {
        TurnState state = newState(small());
        ControlRequest r = approval(MASTER, "t1", 60_000, "a");
        long heldAt = nowMs();
        assertThat(state.requests().answer(approve(MASTER, r, null), Duration.ofSeconds(1)).block(WAIT))
                .isEqualTo(AnswerOutcome.HELD);
        advance(Duration.ofSeconds(2));
        await().atMost(WAIT).pollInterval(Duration.ofMillis(250)).until(() -> nowMs() > heldAt + 1_500);
        RequestState raised = state.requests().raise(r).block(WAIT);
        assertThat(raised.status()).isEqualTo(RequestState.Status.NEW);
        assertThat(raised.answers()).isEmpty();
    }

    @Test
    void requests_answersAreFoundByCall_whateverRequestTheyAnswered() {
        TurnState state = newState(small());
        ControlRequest both = approval(MEMBER, "t1", 60_000, "a", "b");
        state.requests().raise(both).block(WAIT);
        state.requests().answer(approve(MEMBER, both, null), Duration.ofMinutes(1)).block(WAIT);
        CallKey b = both.calls().get(1);
        CallKey c = call(MEMBER, "t1", "c");
        Map<CallKey, ControlAnswer> found = peer(state).requests().findForCalls(List.of(b, c)).block(WAIT);
        assertThat(found).containsOnlyKeys(b);
        assertThat(found.get(b).requestId()).isEqualTo(both.id());
        ControlRequest onlyB = approval(MEMBER, "t1", 60_000, "b");
        assertThat(onlyB.id()).isNotEqualTo(both.id());
    }

    @Test
    void requests_aQuestion_isAnsweredOnce_andARetrySafeToolAskingAgainGetsTheAnswer() {
        TurnState state = newState(small());
        CallKey a = call(MASTER, "t1", "a");
        ControlRequest q = question(a, 1, 60_000);
        assertThat(state.requests().raise(q).block(WAIT).status()).isEqualTo(RequestState.Status.NEW);
        ControlAnswer city = ControlAnswer.input(MASTER, new InputResponseEvent(stream, q.id(), InputAction.ACCEPT,
                Json.mapper().createObjectNode().put("city", "Paris")));
        assertThat(peer(state).requests().answer(city, Duration.ofMinutes(1)).block(WAIT)).isEqualTo(AnswerOutcome.RECORDED);
        ControlAnswer other = ControlAnswer.input(MASTER, new InputResponseEvent(stream, q.id(), InputAction.DECLINE, null));
        assertThat(state.requests().answer(other, Duration.ofMinutes(1)).block(WAIT))
                .isEqualTo(AnswerOutcome.ALREADY_ANSWERED);
        RequestState again = peer(state).requests().raise(question(a, 1, 90_000)).block(WAIT);
        assertThat(again.status()).isEqualTo(RequestState.Status.ANSWERED);
        assertThat(((InputResponseEvent) again.answer(a).response()).content().path("city").asText()).isEqualTo("Paris");
        assertThat(question(a, 2, 60_000).id()).isNotEqualTo(q.id());
    }

    @Test
    void requests_recordsExpireAfterTheirExpiryAndTheRecordTtl() {
        TurnState state = newState(small());
        ControlRequest r = approval(MASTER, "t1", 500, "a");
        state.requests().raise(r).block(WAIT);
        assertThat(state.requests().find(r.id()).block(WAIT)).isNotNull();
        advance(Duration.ofSeconds(3));
        await().atMost(WAIT).pollInterval(Duration.ofMillis(250))
                .until(() -> state.requests().find(r.id()).block(WAIT) == null);
    }

    // session grants

    @Test
    void grants_aGrantCoversExactlyItsPrincipalStreamUserAndTool() {
        TurnState state = newState(small());
        state.grants().grant(GrantKey.of(MASTER, stream, "u1", "delete_file"), Duration.ofMinutes(5)).block(WAIT);
        assertThat(peer(state).grants().has(GrantKey.of(MASTER, stream, "u1", "delete_file")).block(WAIT)).isTrue();
        assertThat(state.grants().has(GrantKey.of(MEMBER, stream, "u1", "delete_file")).block(WAIT))
                .as("the same user asserted by another principal").isFalse();
        assertThat(state.grants().has(GrantKey.of(MASTER, stream + "-b", "u1", "delete_file")).block(WAIT)).isFalse();
        assertThat(state.grants().has(GrantKey.of(MASTER, stream, "u2", "delete_file")).block(WAIT)).isFalse();
        assertThat(state.grants().has(GrantKey.of(MASTER, stream, "u1", "send_mail")).block(WAIT)).isFalse();
    }

    @Test
    void grants_expireAfterTheirTtl() {
        TurnState state = newState(small());
        GrantKey k = GrantKey.of(MASTER, stream, "u1", "delete_file");
        state.grants().grant(k, Duration.ofSeconds(1)).block(WAIT);
        assertThat(state.grants().has(k).block(WAIT)).isTrue();
        advance(Duration.ofSeconds(2));
        await().atMost(WAIT).pollInterval(Duration.ofMillis(250)).until(() -> !state.grants().has(k).block(WAIT));
    }

    @Test
    void grants_areBoundedInCount() {
        TurnState state = newState(small().toBuilder().grantsMaxEntries(20).build());
        List<GrantKey> keys = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            GrantKey k = GrantKey.of(MASTER, stream, "u" + i, "tool");
            keys.add(k);
            state.grants().grant(k, Duration.ofMinutes(5)).block(WAIT);
        }
        await().atMost(WAIT).pollInterval(Duration.ofMillis(250)).until(() ->
                keys.stream().filter(k -> state.grants().has(k).block(WAIT)).count() <= 20);
    }

    // cut results

    @Test
    void cutResults_aTextIsReadBackByExactlyItsKey() {
        TurnState state = newState(small());
        CutKey k = CutKey.of(MASTER, stream, "c1");
        assertThat(state.cutResults().put(k, "the whole text", 5).block(WAIT)).isTrue();
        assertThat(peer(state).cutResults().get(CutKey.of(MASTER, stream, "c1")).block(WAIT))
                .isEqualTo(new CutResults.Cut("the whole text", 5));
        assertThat(state.cutResults().get(CutKey.of(MEMBER, stream, "c1")).block(WAIT))
                .as("another principal on the same stream").isNull();
        assertThat(state.cutResults().get(CutKey.of(MASTER, stream + "-b", "c1")).block(WAIT)).isNull();
        assertThat(state.cutResults().get(CutKey.of(MASTER, stream, "c2")).block(WAIT)).isNull();
    }

    @Test
    void cutResults_aTextAboveAQuarterOfTheBound_isNotKept() {
        TurnState state = newState(small().toBuilder().cutResultsMaxBytes(64 * 1024).build());
        CutKey k = CutKey.of(MASTER, stream, "c1");
        assertThat(state.cutResults().put(k, "x".repeat(20_000), 100).block(WAIT)).isFalse();
        assertThat(state.cutResults().get(k).block(WAIT)).isNull();
    }

    @Test
    void cutResults_areBoundedPerStream_theNewestKept() {
        TurnState state = newState(small());
        for (int i = 0; i < 6; i++) {
            state.cutResults().put(CutKey.of(MASTER, stream, "c" + i), "text " + i, 5).block(WAIT);
        }
        state.cutResults().put(CutKey.of(MASTER, stream + "-b", "c0"), "other", 5).block(WAIT);
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            if (state.cutResults().get(CutKey.of(MASTER, stream, "c" + i)).block(WAIT) != null) {
                kept.add("c" + i);
            }
        }
        assertThat(kept).containsExactly("c3", "c4", "c5");
        assertThat(state.cutResults().get(CutKey.of(MASTER, stream + "-b", "c0")).block(WAIT)).isNotNull();
    }

    @Test
    void cutResults_expireAfterTheirTtl() {
        TurnState state = newState(small());
        CutKey k = CutKey.of(MASTER, stream, "c1");
        state.cutResults().put(k, "text", 5).block(WAIT);
        advance(Duration.ofSeconds(3));
        await().atMost(WAIT).pollInterval(Duration.ofMillis(250)).until(() -> state.cutResults().get(k).block(WAIT) == null);
    }

    // the ledger

    @Test
    void ledger_theSameTurnIdFromAnotherPrincipal_isAnotherTurn_neverReplayedOrJoined() {
        TurnState state = newState(small());
        TurnLedger ledger = state.ledger();
        if (ledger == null || ledger == TurnLedger.none()) {
            return; // the bus deduplicates turns itself, or not at all
        }
        TurnKey mine = TurnKey.of(MASTER, stream, "t1");
        TurnKey theirs = TurnKey.of(MEMBER, stream, "t1");
        assertThat(ledger.admit(mine).block(WAIT)).isEqualTo(TurnLedger.Admission.run());
        assertThat(ledger.admit(theirs).block(WAIT)).as("while mine runs").isEqualTo(TurnLedger.Admission.run());
        ledger.complete(mine, List.of(result(call(MASTER, "t1", "a"), "mine"))).block(WAIT);
        ledger.release(theirs);
        TurnLedger.Admission again = ledger.admit(mine).block(WAIT);
        assertThat(again).isInstanceOf(TurnLedger.Admission.Replay.class);
        assertThat(ledger.admit(theirs).block(WAIT)).as("after mine finished").isEqualTo(TurnLedger.Admission.run());
        ledger.release(theirs);
    }

    // gauges

    @Test
    void gauges_countTheRecordsOfEachFacet() {
        TurnState state = newState(small());
        if (gauge(state, "toolbus.state.records", "journal") == null) {
            return; // not exposed by this implementation's fixture
        }
        double journal = gauge(state, "toolbus.state.records", "journal");
        double cuts = gauge(state, "toolbus.state.records", "cut_results");
        double grants = gauge(state, "toolbus.state.records", "grants");
        state.journal().begin(List.of(call(MASTER, "t1", "a"), call(MASTER, "t1", "b"))).block(WAIT);
        state.cutResults().put(CutKey.of(MASTER, stream, "c1"), "text", 5).block(WAIT);
        state.grants().grant(GrantKey.of(MASTER, stream, "u", "t"), Duration.ofMinutes(1)).block(WAIT);
        state.requests().raise(approval(MASTER, "t1", 60_000, "a")).block(WAIT);
        assertThat(gauge(state, "toolbus.state.records", "journal")).isEqualTo(journal + 2);
        assertThat(gauge(state, "toolbus.state.records", "cut_results")).isEqualTo(cuts + 1);
        assertThat(gauge(state, "toolbus.state.records", "grants")).isEqualTo(grants + 1);
        assertThat(gauge(state, "toolbus.state.records", "requests")).isGreaterThanOrEqualTo(1.0);
        assertThat(gauge(state, "toolbus.state.bytes", "journal")).isGreaterThan(0.0);
    }

    // helpers

    /** A call of this test's stream. */
    protected CallKey call(Principal p, String turnId, String toolCallId) {
        return CallKey.of(p, stream, turnId, toolCallId);
    }

    /** A {@code tool_result} of the call. */
    protected static ToolResultEvent result(CallKey k, String content) {
        return ToolResultEvent.builder().streamId(k.streamId()).turnId(k.turnId()).toolCallId(k.toolCallId())
                .name("tool").content(content).attempts(1).elapsedMs(3).build();
    }

    /** An approval request of this test's stream for these calls of the turn, expiring {@code inMs} from now. */
    protected ControlRequest approval(Principal p, String turnId, long inMs, String... toolCallIds) {
        return approval(p, stream, turnId, inMs, toolCallIds);
    }

    /** An approval request of a stream for these calls of the turn, expiring {@code inMs} from now. */
    protected ControlRequest approval(Principal p, String streamId, String turnId, long inMs, String... toolCallIds) {
        TurnKey turn = TurnKey.of(p, streamId, turnId);
        List<ApprovalRequestEvent.Call> calls = new ArrayList<>();
        for (String id : toolCallIds) {
            calls.add(new ApprovalRequestEvent.Call(id, "delete_file", Risk.HIGH, "{\"path\":\"a.txt\"}"));
        }
        String id = ControlRequest.approvalId(turn, List.of(toolCallIds));
        return ControlRequest.approval(turn, ApprovalRequestEvent.builder().streamId(streamId).turnId(turnId)
                .approvalId(id).expiresAtMs(nowMs() + inMs).calls(calls).text("The model requested these tools").build());
    }

    /** The {@code ordinal}-th question of a call, expiring {@code inMs} from now. */
    protected ControlRequest question(CallKey call, int ordinal, long inMs) {
        String id = ControlRequest.inputId(call, ordinal);
        return ControlRequest.input(call, ordinal, InputRequestEvent.builder().streamId(call.streamId())
                .turnId(call.turnId()).toolCallId(call.toolCallId()).inputId(id).expiresAtMs(nowMs() + inMs)
                .message("Which city?").build());
    }

    /** {@code approve} by a principal, for one call or (null) every call. */
    protected static ControlAnswer approve(Principal by, ControlRequest r, String toolCallId) {
        return ControlAnswer.approval(by, new ApprovalResponseEvent(r.streamId(), r.id(), ApprovalDecision.APPROVE),
                toolCallId);
    }

    /** {@code deny} by a principal, for one call or (null) every call. */
    protected static ControlAnswer deny(Principal by, ControlRequest r, String toolCallId) {
        return ControlAnswer.approval(by, new ApprovalResponseEvent(r.streamId(), r.id(), ApprovalDecision.DENY),
                toolCallId);
    }

    private static ApprovalDecision decision(ControlAnswer a) {
        return ((ApprovalResponseEvent) a.response()).decision();
    }

    /** Per call, its answer's decision (diagnostics of a failed assertion). */
    protected static Map<String, ApprovalDecision> decisions(RequestState s) {
        Map<String, ApprovalDecision> out = new LinkedHashMap<>();
        s.answers().forEach((k, a) -> out.put(k.toolCallId(), decision(a)));
        return out;
    }
}
