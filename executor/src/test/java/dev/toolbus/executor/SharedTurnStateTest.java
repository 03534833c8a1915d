package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.InputAction;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ReplayedEvent;
import dev.toolbus.protocol.Risk;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The engine on the turn-state facets, with two instances sharing one in-memory state (issue 20 items
 * 2, 3 and 5): the call journal per wave, deterministic approval and input ids answered on whichever
 * instance receives the answer, grants and cut results honoured by another instance, all bound to the
 * turn's principal.
 */
class SharedTurnStateTest extends ClusterFixture {

    @Test
    void aSideEffectingCallThatFinished_isReplayedFromTheJournal_onAnyInstance_notRunAgain() {
        Instances.View va = cluster.view();
        Instances.View vb = cluster.view();
        ToolExecutor a = instance("a", va);
        ToolExecutor b = instance("b", vb);
        List<OutboundEvent> first = run(a, turn("s", "t1", call("c1", "pay", "{}"), call("c2", "lookup", "{}"))).join();
        assertThat(results(first)).extracting(ToolResultEvent::content).containsExactly("paid 1", "looked 1");

        List<OutboundEvent> again = run(b, turn("s", "t1", call("c1", "pay", "{}"), call("c2", "lookup", "{}"))).join();
        assertThat(again.get(0)).as("the journal's record, marked replayed").isInstanceOf(ReplayedEvent.class);
        assertThat(((ReplayedEvent) again.get(0)).event()).isEqualTo(first.get(0));
        assertThat(again.get(1)).as("a read-only call just runs again").isInstanceOf(ToolResultEvent.class);
        assertThat(results(again)).extracting(ToolResultEvent::content).containsExactly("paid 1", "looked 2");
        assertThat(paid).hasValue(1);
        assertThat(b.callLog().recent(r -> r.toolCallId().equals("c1"), 1).get(0).detail())
                .isEqualTo("replayed from the call journal");

        assertThat(results(run(b, turn("s", "t2", call("c1", "pay", "{}"))).join()))
                .as("another turn is another call").extracting(ToolResultEvent::content).containsExactly("paid 2");
        assertThat(results(run(a, turnOf("s", "t1", "", call("c1", "pay", "{}")), Principal.token("other").build())
                .join())).as("the same turn id from another principal is its own turn")
                .extracting(ToolResultEvent::content).containsExactly("paid 3");
    }

    @Test
    void aCallThatStartedAndNeverFinished_endsOutcomeUnknown_whileRetrySafeCallsRunAgain() {
        Instances.View va = cluster.view();
        ToolExecutor a = instance("a", va);
        payHangs.set(true);
        CompletableFuture<List<OutboundEvent>> dying = run(a, turn("s", "t1", call("c1", "pay", "{}"),
                call("c2", "charge", "{}"), call("c3", "lookup", "{}")));
        assertThat(paid).hasValue(1);
        assertThat(charged).hasValue(1);
        va.kill();
        payHangs.set(false);

        ToolExecutor b = instance("b", cluster.view());
        List<OutboundEvent> out = run(b, turn("s", "t1", call("c1", "pay", "{}"), call("c2", "charge", "{}"),
                call("c3", "lookup", "{}"))).join();
        List<ToolResultEvent> r = results(out);
        assertThat(r.get(0).error().code()).isEqualTo(ErrorCode.OUTCOME_UNKNOWN);
        assertThat(r.get(0).content()).contains("may or may not have taken effect").contains("pay");
        assertThat(r.get(1).content()).as("idempotent: runs again").isEqualTo("charged 2");
        assertThat(r.get(2).content()).isEqualTo("looked 2");
        assertThat(paid).as("never twice").hasValue(1);
        assertThat(b.callLog().recent(x -> x.toolCallId().equals("c1"), 1).get(0).detail())
                .startsWith("outcome unknown");
        assertThat(dying).isNotDone();
    }

    @Test
    void onlyCallsThatAreNotRetrySafe_touchTheJournal_oneBeginAndOneFinishAWave() {
        Instances.View v = cluster.view();
        ToolExecutor a = instance("a", v);
        run(a, turn("s", "t1", call("c1", "lookup", "{}"), call("c2", "charge", "{}"))).join();
        assertThat(v.count("journal.begin") + v.count("journal.finish")).as("a retry-safe turn pays nothing").isZero();

        List<OutboundEvent> out = run(a, turn("s", "t2", call("c1", "pay", "{}"), call("c2", "lookup", "{}"),
                call("c3", "pay", "{}"))).join();
        assertThat(results(out)).extracting(ToolResultEvent::content).containsExactly("paid 1", "looked 2", "paid 2");
        assertThat(v.count("journal.begin")).as("one begin for the wave").isEqualTo(1);
        assertThat(v.count("journal.finish")).isBetween(1, 2);
    }

    @Test
    void aJournalThatFails_startsNothing_andSaysWhatFailed() {
        Instances.View v = cluster.view();
        v.around.put("journal.begin", m -> Mono.error(new IllegalStateException("journal store down")));
        ToolExecutor a = instance("a", v);
        List<ToolResultEvent> r = results(run(a, turn("s", "t1", call("c1", "pay", "{}"), call("c2", "lookup", "{}")))
                .join());
        assertThat(r.get(0).error().code()).isEqualTo(ErrorCode.STATE_UNAVAILABLE);
        assertThat(r.get(0).content()).contains("pay").contains("journal store down");
        assertThat(r.get(1).content()).isEqualTo("looked 1");
        assertThat(paid).hasValue(0);
    }

    @Test
    void anApprovalAnsweredOnAnotherInstance_runsTheCallWhereItWaits() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
        ToolExecutor a = instance("a", cluster.view());
        ToolExecutor b = instance("b", cluster.view());
        CompletableFuture<List<OutboundEvent>> waiting = run(a, turn("s", "t1", call("c1", "pay", "{}")));
        ApprovalRequestEvent request = seen(ApprovalRequestEvent.class).get(0);
        assertThat(request.approvalId()).as("derived: any instance raises the same id")
                .isEqualTo(ControlRequest.approvalId(TurnKey.of(Principal.local(), "s", "t1"), List.of("c1")));

        Principal member = Principal.token("member").maxPermission("member").build();
        assertThat(b.control(new ApprovalResponseEvent("s", request.approvalId(), ApprovalDecision.APPROVE), member)
                .block()).as("a principal that may not answer for local").isEqualTo(ControlOutcome.UNKNOWN_REQUEST);
        assertThat(waiting).isNotDone();
        assertThat(b.control(new ApprovalResponseEvent("other", request.approvalId(), ApprovalDecision.APPROVE)).block())
                .as("another stream").isEqualTo(ControlOutcome.UNKNOWN_REQUEST);

        assertThat(b.control(new ApprovalResponseEvent("s", request.approvalId(), ApprovalDecision.APPROVE)).block())
                .isEqualTo(ControlOutcome.APPLIED);
        assertThat(results(waiting.join())).extracting(ToolResultEvent::content).containsExactly("paid 1");
        assertThat(b.control(new ApprovalResponseEvent("s", request.approvalId(), ApprovalDecision.DENY)).block())
                .as("answered already").isEqualTo(ControlOutcome.UNKNOWN_REQUEST);
        assertThat(paid).hasValue(1);
    }

    @Test
    void anAnswerBeforeItsRequest_isHeld_andAppliedWithoutAsking() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
        ToolExecutor a = instance("a", cluster.view());
        ToolExecutor b = instance("b", cluster.view());
        String id = ControlRequest.approvalId(TurnKey.of(Principal.local(), "s", "t1"), List.of("c1"));
        assertThat(b.control(new ApprovalResponseEvent("s", id, ApprovalDecision.DENY)).block())
                .isEqualTo(ControlOutcome.HELD);
        List<OutboundEvent> out = run(a, turn("s", "t1", call("c1", "pay", "{}"))).join();
        assertThat(seen(ApprovalRequestEvent.class)).as("answered before it was asked: nothing to ask").isEmpty();
        assertThat(results(out).get(0).error().code()).isEqualTo(ErrorCode.NOT_APPROVED);
        assertThat(paid).hasValue(0);
    }

    @Test
    void aQuestionAnsweredOnAnotherInstance_reachesTheToolThatAsked() {
        ToolExecutor a = instance("a", cluster.view());
        ToolExecutor b = instance("b", cluster.view());
        CompletableFuture<List<OutboundEvent>> waiting = run(a, turn("s", "t1", call("c1", "ask_city", "{}")));
        InputRequestEvent q = seen(InputRequestEvent.class).get(0);
        ObjectNode paris = Json.mapper().createObjectNode().put("city", "Paris");
        assertThat(b.control(new InputResponseEvent("s", q.inputId(), InputAction.ACCEPT, paris),
                Principal.token("stranger").maxPermission("member").build()).block())
                .as("not the asker's").isEqualTo(ControlOutcome.UNKNOWN_REQUEST);
        assertThat(b.control(new InputResponseEvent("s", q.inputId(), InputAction.ACCEPT, paris)).block())
                .isEqualTo(ControlOutcome.APPLIED);
        assertThat(results(waiting.join())).extracting(ToolResultEvent::content).containsExactly("city Paris");
    }

    @Test
    void aSessionGrantMadeOnOneInstance_isHonouredByAnother_forItsPrincipalOnly() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).sessionMaxRisk(Risk.HIGH).build());
        ToolExecutor a = instance("a", cluster.view());
        ToolExecutor b = instance("b", cluster.view());
        Principal bot = Principal.token("bot").maxPermission("admin").build();
        CompletableFuture<List<OutboundEvent>> waiting = run(a, turnOf("s", "t1", "u1", call("c1", "pay", "{}")), bot);
        String id = seen(ApprovalRequestEvent.class).get(0).approvalId();
        assertThat(b.control(new ApprovalResponseEvent("s", id, ApprovalDecision.APPROVE_SESSION), bot).block())
                .isEqualTo(ControlOutcome.APPLIED);
        assertThat(results(waiting.join())).extracting(ToolResultEvent::content).containsExactly("paid 1");

        live.clear();
        List<OutboundEvent> next = run(b, turnOf("s", "t2", "u1", call("c1", "pay", "{}")), bot).join();
        assertThat(seen(ApprovalRequestEvent.class)).as("granted on a").isEmpty();
        assertThat(results(next)).extracting(ToolResultEvent::content).containsExactly("paid 2");

        CompletableFuture<List<OutboundEvent>> other = run(b, turnOf("s", "t3", "u1", call("c1", "pay", "{}")),
                Principal.token("other").maxPermission("admin").build());
        assertThat(seen(ApprovalRequestEvent.class)).as("another principal, same stream and user: asked").hasSize(1);
        assertThat(other).isNotDone();
    }

    @Test
    void aResultCutOnOneInstance_isReadBackOnAnother_byItsPrincipalOnly() {
        ToolExecutor a = instance("a", cluster.view());
        ToolExecutor b = instance("b", cluster.view());
        Principal bot = Principal.token("bot").build();
        ToolResultEvent cut = results(run(a, turnOf("s", "t1", "", call("c1", "long_text", "{}")), bot).join()).get(0);
        assertThat(cut.content()).contains("read_tool_result").hasSizeLessThan(400);

        ToolResultEvent read = results(run(b, turnOf("s", "t2", "", call("r1", "read_tool_result",
                "{\"tool_call_id\":\"c1\",\"offset\":100}")), bot).join()).get(0);
        assertThat(read.isError()).isFalse();
        assertThat(read.content()).startsWith("0123456789");

        ToolResultEvent stranger = results(run(b, turnOf("s", "t3", "", call("r1", "read_tool_result",
                "{\"tool_call_id\":\"c1\"}")), Principal.token("other").build()).join()).get(0);
        assertThat(stranger.isError()).as("another principal on the same stream").isTrue();
        assertThat(stranger.error().code()).isEqualTo(ErrorCode.TOOL_ERROR);
    }

    @Test
    void aPendingQuestionAndApproval_expireOnTheTimerOfTheirOwner() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).timeoutMs(5_000).build());
        ToolExecutor a = instance("a", cluster.view());
        CompletableFuture<List<OutboundEvent>> waiting = run(a, turn("s", "t1", call("c1", "pay", "{}")));
        String id = seen(ApprovalRequestEvent.class).get(0).approvalId();
        cluster.vts.advanceTimeBy(Duration.ofMillis(5_000));
        assertThat(results(waiting.join()).get(0).error().code()).isEqualTo(ErrorCode.NOT_APPROVED);
        assertThat(a.control(new ApprovalResponseEvent("s", id, ApprovalDecision.APPROVE)).block())
                .as("closed in the state").isEqualTo(ControlOutcome.UNKNOWN_REQUEST);
        assertThat(paid).hasValue(0);
    }
}
