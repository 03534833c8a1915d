package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.executor.state.InMemoryTurnState;
import dev.toolbus.metrics.ToolMetrics;
import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.InputAction;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ReplayedEvent;
import dev.toolbus.protocol.Risk;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.spi.TurnStateSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Sinks;

/**
 * Issue 20 item 6 on the in-memory state, on virtual time: the instance running a turn is killed (its
 * view of the state dies: nothing it does reaches the state any more) and a new instance built on the
 * same state takes the turn again, as a bus redelivers it.
 */
class TakeoverTest extends ClusterFixture {

    private static final ObjectNode PARIS = Json.mapper().createObjectNode().put("city", "Paris");

    private List<OutboundEvent> liveOf(Class<?> type) {
        return live.stream().filter(e -> type.isInstance(e instanceof ReplayedEvent r ? r.event() : e)).toList();
    }

    @Test
    void killedAfterASideEffectingCallFinished_theNextOwnerReplaysIt_andRunsTheRetrySafeCallAgain() {
        Instances.View va = cluster.view();
        ToolExecutor a = instance("a", va);
        lookupHangs.set(true);
        CompletableFuture<List<OutboundEvent>> dying = run(a, turn("s", "t1", call("c1", "pay", "{}"),
                call("c2", "lookup", "{}")));
        assertThat(paid).hasValue(1);
        assertThat(looked).hasValue(1);
        va.kill();
        lookupHangs.set(false);

        List<OutboundEvent> out = run(instance("b", cluster.view()), turn("s", "t1", call("c1", "pay", "{}"),
                call("c2", "lookup", "{}"))).join();
        assertThat(out.get(0)).isInstanceOf(ReplayedEvent.class);
        assertThat(results(out)).extracting(ToolResultEvent::content).containsExactly("paid 1", "looked 2");
        assertThat(paid).as("never twice").hasValue(1);
        assertThat(dying).isNotDone();
    }

    @Test
    void killedWhileASideEffectingCallRan_itEndsOutcomeUnknown_onEveryLaterOwner() {
        Instances.View va = cluster.view();
        payHangs.set(true);
        run(instance("a", va), turn("s", "t1", call("c1", "pay", "{}")));
        va.kill();
        payHangs.set(false);
        for (String next : List.of("b", "c")) {
            Instances.View v = cluster.view();
            ToolResultEvent r = results(run(instance(next, v), turn("s", "t1", call("c1", "pay", "{}"))).join()).get(0);
            assertThat(r.error().code()).isEqualTo(ErrorCode.OUTCOME_UNKNOWN);
            assertThat(r.content()).contains("Check whether it took effect");
            v.kill();
        }
        assertThat(paid).hasValue(1);
    }

    @Test
    void anApprovalAnsweredAfterItsOwnerDied_beforeTheTakeover_isAppliedWithoutAskingAgain() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
        Instances.View va = cluster.view();
        run(instance("a", va), turn("s", "t1", call("c1", "pay", "{}")));
        String id = ((ApprovalRequestEvent) live.get(0)).approvalId();
        va.kill();
        ToolExecutor b = instance("b", cluster.view());
        assertThat(b.control(new ApprovalResponseEvent("s", id, ApprovalDecision.APPROVE)).block())
                .as("recorded under the original id").isEqualTo(ControlOutcome.APPLIED);
        live.clear();

        List<OutboundEvent> out = run(b, turn("s", "t1", call("c1", "pay", "{}"))).join();
        assertThat(liveOf(ApprovalRequestEvent.class)).as("asked once, answered once").isEmpty();
        assertThat(results(out)).extracting(ToolResultEvent::content).containsExactly("paid 1");
    }

    @Test
    void anApprovalUnansweredWhenItsOwnerDied_isPublishedAgainWithItsIdAndExpiry_markedReplayed() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).timeoutMs(60_000).build());
        Instances.View va = cluster.view();
        run(instance("a", va), turn("s", "t1", call("c1", "pay", "{}")));
        ApprovalRequestEvent first = (ApprovalRequestEvent) live.get(0);
        va.kill();
        cluster.vts.advanceTimeBy(Duration.ofSeconds(20));
        live.clear();

        ToolExecutor b = instance("b", cluster.view());
        CompletableFuture<List<OutboundEvent>> taken = run(b, turn("s", "t1", call("c1", "pay", "{}")));
        assertThat(live).singleElement().isInstanceOf(ReplayedEvent.class)
                .satisfies(e -> assertThat(((ReplayedEvent) e).event()).isEqualTo(first));
        assertThat(instance("c", cluster.view()).control(new ApprovalResponseEvent("s", first.approvalId(),
                ApprovalDecision.APPROVE)).block()).as("answered on a third instance").isEqualTo(ControlOutcome.APPLIED);
        assertThat(results(taken.join())).extracting(ToolResultEvent::content).containsExactly("paid 1");
    }

    @Test
    void aReplayedApproval_keepsItsFirstExpiry() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).timeoutMs(60_000).build());
        Instances.View va = cluster.view();
        run(instance("a", va), turn("s", "t1", call("c1", "pay", "{}")));
        va.kill();
        cluster.vts.advanceTimeBy(Duration.ofSeconds(20));
        CompletableFuture<List<OutboundEvent>> taken = run(instance("b", cluster.view()),
                turn("s", "t1", call("c1", "pay", "{}")));
        cluster.vts.advanceTimeBy(Duration.ofSeconds(39));
        assertThat(taken).isNotDone();
        cluster.vts.advanceTimeBy(Duration.ofSeconds(1));
        assertThat(results(taken.join()).get(0).error().code()).as("60 s after it was first asked")
                .isEqualTo(ErrorCode.NOT_APPROVED);
        assertThat(paid).hasValue(0);
    }

    @Test
    void aQuestionAnsweredAfterItsOwnerDied_isNotAskedAgain_andOneUnanswered_isAskedAgainUnderItsId() {
        Instances.View va = cluster.view();
        run(instance("a", va), turn("s", "t1", call("c1", "ask_city", "{}")));
        run(instance("a", va), turn("s", "t2", call("c1", "ask_city", "{}")));
        List<InputRequestEvent> asked = seen(InputRequestEvent.class);
        assertThat(asked).hasSize(2);
        va.kill();
        ToolExecutor b = instance("b", cluster.view());
        assertThat(b.control(new InputResponseEvent("s", asked.get(0).inputId(), InputAction.ACCEPT, PARIS)).block())
                .isEqualTo(ControlOutcome.APPLIED);
        live.clear();

        List<OutboundEvent> answered = run(b, turn("s", "t1", call("c1", "ask_city", "{}"))).join();
        assertThat(liveOf(InputRequestEvent.class)).as("answered before the takeover").isEmpty();
        assertThat(results(answered)).extracting(ToolResultEvent::content).containsExactly("city Paris");

        live.clear();
        CompletableFuture<List<OutboundEvent>> waiting = run(b, turn("s", "t2", call("c1", "ask_city", "{}")));
        assertThat(live).singleElement().isInstanceOf(ReplayedEvent.class)
                .satisfies(e -> assertThat(((ReplayedEvent) e).event()).isEqualTo(asked.get(1)));
        assertThat(b.control(new InputResponseEvent("s", asked.get(1).inputId(), InputAction.ACCEPT,
                Json.mapper().createObjectNode().put("city", "Oslo"))).block()).isEqualTo(ControlOutcome.APPLIED);
        assertThat(results(waiting.join())).extracting(ToolResultEvent::content).containsExactly("city Oslo");
    }

    @Test
    void grantsAndCutResults_ofADeadInstance_serveTheNextOne() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).sessionMaxRisk(Risk.HIGH).build());
        Instances.View va = cluster.view();
        ToolExecutor a = instance("a", va);
        CompletableFuture<List<OutboundEvent>> granted = run(a, turnOf("s", "t1", "u1", call("c1", "pay", "{}"),
                call("c2", "long_text", "{}")));
        a.control(new ApprovalResponseEvent("s", seen(ApprovalRequestEvent.class).get(0).approvalId(),
                ApprovalDecision.APPROVE_SESSION)).block();
        assertThat(results(granted.join()).get(1).content()).contains("read_tool_result");
        va.kill();
        live.clear();

        ToolExecutor b = instance("b", cluster.view());
        List<ToolResultEvent> r = results(run(b, turnOf("s", "t2", "u1", call("c1", "pay", "{}"),
                call("c2", "read_tool_result", "{\"tool_call_id\":\"c2\",\"offset\":490}"))).join());
        assertThat(liveOf(ApprovalRequestEvent.class)).isEmpty();
        assertThat(r.get(0).content()).isEqualTo("paid 2");
        assertThat(r.get(1).content()).startsWith("0123456789\n").contains("characters 490 to 500 of 500");
    }

    @Test
    void aStalledInstanceThatWakesAfterItsTurnMoved_doesNotRunTheCallAgain() {
        Instances.View va = cluster.view();
        Sinks.Empty<Void> wake = Sinks.empty();
        va.around.put("journal.begin", m -> m.delaySubscription(wake.asMono()));
        CompletableFuture<List<OutboundEvent>> stalled = run(instance("a", va), turn("s", "t1", call("c1", "pay", "{}")));
        assertThat(paid).hasValue(0);

        List<OutboundEvent> moved = run(instance("b", cluster.view()), turn("s", "t1", call("c1", "pay", "{}"))).join();
        assertThat(results(moved)).extracting(ToolResultEvent::content).containsExactly("paid 1");
        wake.tryEmitEmpty();
        List<OutboundEvent> late = stalled.join();
        assertThat(late.get(0)).as("only the first run's result, marked replayed: consumers drop it")
                .isInstanceOf(ReplayedEvent.class);
        assertThat(results(late)).extracting(ToolResultEvent::content).containsExactly("paid 1");
        assertThat(paid).hasValue(1);
    }

    @Test
    void aStalledOwnerAndTheNewOne_waitingOnOneApproval_runTheCallOnce() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
        CompletableFuture<List<OutboundEvent>> stalled = run(instance("a", cluster.view()),
                turn("s", "t1", call("c1", "pay", "{}")));
        CompletableFuture<List<OutboundEvent>> moved = run(instance("b", cluster.view()),
                turn("s", "t1", call("c1", "pay", "{}")));
        String id = ((ApprovalRequestEvent) live.get(0)).approvalId();
        assertThat(live.get(1)).as("the new owner publishes it again").isInstanceOf(ReplayedEvent.class);
        instance("c", cluster.view()).control(new ApprovalResponseEvent("s", id, ApprovalDecision.APPROVE)).block();
        List<ToolResultEvent> both = List.of(results(stalled.join()).get(0), results(moved.join()).get(0));
        assertThat(paid).as("both were approved; the journal let one run").hasValue(1);
        assertThat(both).filteredOn(r -> !r.isError()).extracting(ToolResultEvent::content).contains("paid 1");
        assertThat(both).filteredOn(ToolResultEvent::isError)
                .allSatisfy(r -> assertThat(r.error().code()).isEqualTo(ErrorCode.OUTCOME_UNKNOWN));
    }

    @Test
    void stateRecordsExpire_onTheStatesClock() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).sessionMaxRisk(Risk.HIGH).build());
        Instances.View va = cluster.view();
        ToolExecutor a = instance("a", va);
        CompletableFuture<List<OutboundEvent>> t1 = run(a, turnOf("s", "t1", "u1", call("c1", "pay", "{}"),
                call("c2", "long_text", "{}")));
        a.control(new ApprovalResponseEvent("s", seen(ApprovalRequestEvent.class).get(0).approvalId(),
                ApprovalDecision.APPROVE_SESSION)).block();
        t1.join();
        va.kill();

        cluster.vts.advanceTimeBy(TurnStateSettings.DEFAULT_CUT_RESULTS_TTL.plusSeconds(1));
        ToolExecutor b = instance("b", cluster.view());
        ToolResultEvent read = results(run(b, turnOf("s", "t2", "u1", call("r", "read_tool_result",
                "{\"tool_call_id\":\"c2\"}"))).join()).get(0);
        assertThat(read.isError()).as("the cut result expired").isTrue();

        cluster.vts.advanceTimeBy(Duration.ofHours(2));
        live.clear();
        CompletableFuture<List<OutboundEvent>> again = run(b, turnOf("s", "t1", "u1", call("c1", "pay", "{}")));
        assertThat(liveOf(ApprovalRequestEvent.class)).as("the grant expired: asked again").hasSize(1);
        b.control(new ApprovalResponseEvent("s", ((ApprovalRequestEvent) liveOf(ApprovalRequestEvent.class).get(0))
                .approvalId(), ApprovalDecision.APPROVE)).block();
        assertThat(results(again.join())).as("the journal's record expired: the same turn runs the call again")
                .extracting(ToolResultEvent::content).containsExactly("paid 2");
    }

    @Test
    void underAFlood_theStateStaysWithinItsBounds_andFailsClosed() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Instances small = new Instances(InMemoryTurnState.builder().meters(meters).settings(TurnStateSettings.builder()
                .journalMaxEntries(5).journalMaxBytes(5 * 2_000).heldPerStream(3).build()));
        ToolExecutor a = instance("a", small, small.view());
        int unavailable = 0;
        for (int i = 0; i < 20; i++) {
            ToolResultEvent r = results(run(a, turn("s", "t" + i, call("c1", "pay", "{}"))).join()).get(0);
            if (r.isError()) {
                assertThat(r.error().code()).isEqualTo(ErrorCode.STATE_UNAVAILABLE);
                assertThat(r.content()).contains("journal is full");
                unavailable++;
            }
        }
        assertThat(paid.get()).as("the journal never dropped a started call to make room").isEqualTo(20 - unavailable)
                .isBetween(1, 5);
        assertThat(meters.get(ToolMetrics.STATE_RECORDS).tag("facet", "journal").gauge().value()).isLessThanOrEqualTo(5);
        assertThat(meters.get(ToolMetrics.STATE_BYTES).tag("facet", "journal").gauge().value())
                .isLessThanOrEqualTo(10_000);

        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
        for (int i = 0; i < 3; i++) {
            String id = ControlRequest.approvalId(TurnKey.of(Principal.local(), "s", "x" + i), List.of("c1"));
            assertThat(a.control(new ApprovalResponseEvent("s", id, ApprovalDecision.APPROVE)).block())
                    .isEqualTo(ControlOutcome.HELD);
        }
        String fourth = ControlRequest.approvalId(TurnKey.of(Principal.local(), "s", "x3"), List.of("c1"));
        assertThat(a.control(new ApprovalResponseEvent("s", fourth, ApprovalDecision.APPROVE)).block())
                .as("the stream's held answers are at their bound").isEqualTo(ControlOutcome.UNKNOWN_REQUEST);
        assertThat(a.control(new ApprovalResponseEvent("s2", ControlRequest.approvalId(TurnKey.of(Principal.local(),
                "s2", "x"), List.of("c1")), ApprovalDecision.APPROVE)).block()).as("another stream holds its own")
                .isEqualTo(ControlOutcome.HELD);
    }
}
