package dev.toolbus.executor.approval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.state.InMemoryTurnState;
import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.Risk;
import dev.toolbus.spi.ControlAnswer;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.ControlRequests;
import dev.toolbus.spi.GrantKey;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.RequestState;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.spi.TurnState;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.text.Texts;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The requests an instance waits on: answers from the turn state, expiry, withdrawal, grants. */
class PendingApprovalsTest {

    private final VirtualTimeScheduler vts = VirtualTimeScheduler.create();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final ApprovalRules rules = new ApprovalRules(
            () -> ApprovalSettings.builder().mode(ApprovalMode.AUTO).timeoutMs(5_000).build());
    private final PendingApprovals pending = new PendingApprovals(rules, Texts.of(DescriptionLocale.EN),
            new ApprovalMetrics(meters), vts);
    private final TurnState state = InMemoryTurnState.builder().nanoClock(() -> vts.now(TimeUnit.NANOSECONDS))
            .epochMillis(() -> vts.now(TimeUnit.MILLISECONDS)).build();
    private final Principal bot = Principal.token("bot").maxPermission("admin").build();
    private final List<String> outcomes = new CopyOnWriteArrayList<>();

    private PendingApprovals.Entry entry(String id, String tool, Risk risk) {
        return new PendingApprovals.Entry(id, tool, risk, "{}", "bob", new PendingApprovals.Waiter() {
            @Override
            public void approved(boolean session, ControlAnswer answer) {
                outcomes.add(id + (session ? ":approved_session" : ":approved"));
            }

            @Override
            public void notApproved(String outcome, String message) {
                outcomes.add(id + ":" + message);
            }
        });
    }

    /** Opens and raises a request of turn t for the entries, as the step does. */
    private PendingApprovals.Request open(String turnId, PendingApprovals.Entry... entries) {
        TurnKey turn = TurnKey.of(bot, "s1", turnId);
        List<String> ids = new ArrayList<>();
        List<ApprovalRequestEvent.Call> calls = new ArrayList<>();
        for (PendingApprovals.Entry e : entries) {
            ids.add(e.toolCallId());
            calls.add(new ApprovalRequestEvent.Call(e.toolCallId(), e.name(), e.risk(), "{}"));
        }
        long expiresAt = vts.now(TimeUnit.MILLISECONDS) + 5_000;
        ControlRequest request = ControlRequest.approval(turn, ApprovalRequestEvent.builder().streamId("s1")
                .turnId(turnId).approvalId(ControlRequest.approvalId(turn, ids)).expiresAtMs(expiresAt).calls(calls)
                .text("text").build());
        PendingApprovals.Request r = pending.open(request, state, List.of(entries));
        RequestState s = state.requests().raise(request).block();
        pending.arm(r, s.request().expiresAtMs());
        return r;
    }

    private ControlRequests.AnswerOutcome answer(Principal by, String id, ApprovalDecision d, String toolCallId) {
        ControlRequests.AnswerOutcome o = state.requests().answer(ControlAnswer.approval(by,
                new ApprovalResponseEvent("s1", id, d), toolCallId), Duration.ofMinutes(1)).block();
        pending.signal(id);
        return o;
    }

    private double count(String outcome) {
        return meters.get("toolbus.control.approvals").tag("outcome", outcome).counter().count();
    }

    @Test
    void anApprovalRecordedInTheState_resumesEveryCallOnce() {
        PendingApprovals.Request r = open("t1", entry("c1", "wipe", Risk.HIGH), entry("c2", "echo", Risk.MEDIUM));
        assertThat(r.id()).startsWith("ap-").hasSize(19);
        assertThat(pending.isOpen(r.id())).isTrue();
        assertThat(answer(bot, r.id(), ApprovalDecision.APPROVE, null)).isEqualTo(ControlRequests.AnswerOutcome.RECORDED);
        assertThat(outcomes).containsExactly("c1:approved", "c2:approved");
        assertThat(answer(bot, r.id(), ApprovalDecision.DENY, null)).as("a second answer")
                .isEqualTo(ControlRequests.AnswerOutcome.ALREADY_ANSWERED);
        pending.signal(r.id());
        vts.advanceTimeBy(Duration.ofMinutes(1));
        assertThat(outcomes).hasSize(2);
        assertThat(count("approved")).isEqualTo(2);
        assertThat(pending.size()).isZero();
    }

    @Test
    void anAnswerForOneCall_resumesOnlyThatCall_andTheExpiryEndsTheRest() {
        PendingApprovals.Request r = open("t1", entry("c1", "wipe", Risk.HIGH), entry("c2", "wipe", Risk.HIGH));
        answer(bot, r.id(), ApprovalDecision.DENY, "c2");
        assertThat(outcomes).containsExactly("c2:Tool not executed: the user declined.");
        vts.advanceTimeBy(Duration.ofMillis(4_999));
        assertThat(outcomes).hasSize(1);
        vts.advanceTimeBy(Duration.ofMillis(1));
        assertThat(outcomes).containsExactly("c2:Tool not executed: the user declined.",
                "c1:Tool not executed: no answer to the approval request within 5000 ms.");
        assertThat(count("denied")).isEqualTo(1);
        assertThat(count("expired")).isEqualTo(1);
        assertThat(pending.size()).isZero();
        assertThat(answer(bot, r.id(), ApprovalDecision.APPROVE, null)).as("closed in the state")
                .isEqualTo(ControlRequests.AnswerOutcome.UNKNOWN);
    }

    @Test
    void aPrincipalThatMayNotAnswer_changesNothing() {
        PendingApprovals.Request r = open("t1", entry("c1", "wipe", Risk.HIGH));
        Principal member = Principal.token("member").maxPermission("member").build();
        assertThat(answer(member, r.id(), ApprovalDecision.APPROVE, null))
                .isEqualTo(ControlRequests.AnswerOutcome.NOT_ALLOWED);
        assertThat(outcomes).isEmpty();
        assertThat(answer(Principal.token("ops").build(), r.id(), ApprovalDecision.APPROVE, null))
                .as("a master token answers for an admin one").isEqualTo(ControlRequests.AnswerOutcome.RECORDED);
        assertThat(outcomes).containsExactly("c1:approved");
    }

    @Test
    void approveSession_grantsInTheStateWhatTheMaxRiskAllows() {
        PendingApprovals.Request r = open("t1", entry("c1", "wipe", Risk.HIGH), entry("c2", "echo", Risk.MEDIUM));
        answer(bot, r.id(), ApprovalDecision.APPROVE_SESSION, null);
        assertThat(outcomes).containsExactly("c1:approved_session", "c2:approved_session");
        assertThat(state.grants().has(GrantKey.of(bot, "s1", "bob", "echo")).block()).isTrue();
        assertThat(state.grants().has(GrantKey.of(bot, "s1", "bob", "wipe")).block())
                .as("high is above sessionMaxRisk medium").isFalse();
        assertThat(state.grants().has(GrantKey.of(Principal.token("other").build(), "s1", "bob", "echo")).block())
                .as("another principal asserting the same user").isFalse();
        vts.advanceTimeBy(ApprovalSettings.GRANT_TTL.minusSeconds(1));
        assertThat(state.grants().has(GrantKey.of(bot, "s1", "bob", "echo")).block()).isTrue();
        vts.advanceTimeBy(Duration.ofSeconds(2));
        assertThat(state.grants().has(GrantKey.of(bot, "s1", "bob", "echo")).block()).as("two hours later").isFalse();
    }

    @Test
    void anUnsentRequestEndsItsCallsNotApproved() {
        PendingApprovals.Request r = open("t1", entry("c1", "wipe", Risk.HIGH));
        pending.abandon(r, "unsent");
        assertThat(outcomes).containsExactly("c1:unsent");
        assertThat(answer(bot, r.id(), ApprovalDecision.APPROVE, null)).isEqualTo(ControlRequests.AnswerOutcome.UNKNOWN);
        vts.advanceTimeBy(Duration.ofMinutes(1));
        assertThat(outcomes).hasSize(1);
    }

    @Test
    void withdrawingTheLastCallClosesTheRequest() {
        PendingApprovals.Entry a = entry("c1", "wipe", Risk.HIGH);
        PendingApprovals.Entry b = entry("c2", "wipe", Risk.HIGH);
        PendingApprovals.Request r = open("t1", a, b);
        assertThat(r.withdraw(a.waiter())).isTrue();
        assertThat(r.withdraw(a.waiter())).isFalse();
        assertThat(pending.isOpen(r.id())).isTrue();
        assertThat(r.withdraw(b.waiter())).isTrue();
        assertThat(pending.isOpen(r.id())).isFalse();
        assertThat(answer(bot, r.id(), ApprovalDecision.APPROVE, null)).isEqualTo(ControlRequests.AnswerOutcome.UNKNOWN);
        vts.advanceTimeBy(Duration.ofMinutes(1));
        assertThat(outcomes).isEmpty();
        assertThat(count("cancelled")).isEqualTo(2);
    }
}
