package dev.toolbus.executor.approval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.Risk;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.text.Texts;
import dev.toolbus.tool.ToolDefinition;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.test.scheduler.VirtualTimeScheduler;

class PendingApprovalsTest {

    private final VirtualTimeScheduler vts = VirtualTimeScheduler.create();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final ApprovalRules rules = new ApprovalRules(
            () -> ApprovalSettings.builder().mode(ApprovalMode.AUTO).timeoutMs(5_000)
                    .build(), () -> vts.now(TimeUnit.NANOSECONDS));
    private final PendingApprovals pending = new PendingApprovals("abcd1234", rules,
            Texts.of(DescriptionLocale.EN), new ApprovalMetrics(meters), vts);
    private final List<String> outcomes = new CopyOnWriteArrayList<>();

    private PendingApprovals.Entry entry(String id, String tool, Risk risk) {
        return new PendingApprovals.Entry(id, tool, risk, "{}", new PendingApprovals.Waiter() {
            @Override
            public void approved(boolean session) {
                outcomes.add(id + (session ? ":approved_session" : ":approved"));
            }

            @Override
            public void notApproved(String outcome, String message) {
                outcomes.add(id + ":" + message);
            }
        });
    }

    private double count(String outcome) {
        return meters.get("toolbus.control.approvals").tag("outcome", outcome).counter().count();
    }

    @Test
    void oneRequestForAllCallsWithIdsOfThisInstance() {
        PendingApprovals.Request r = pending.open("s1", "t1", "bob",
                List.of(entry("c1", "wipe", Risk.HIGH), entry("c2", "echo", Risk.MEDIUM)));
        assertThat(List.of(r.event)).singleElement().satisfies(e -> {
            assertThat(e.approvalId()).isEqualTo("ap-abcd1234-1").isEqualTo(r.id);
            assertThat(e.expiresAtMs()).isEqualTo(vts.now(TimeUnit.MILLISECONDS) + 5_000);
            assertThat(e.calls()).extracting(ApprovalRequestEvent.Call::toolCallId).containsExactly("c1", "c2");
            assertThat(e.text()).startsWith("The model requested these tools:\n[1] wipe risk: high");
        });
        assertThat(pending.open("s1", "t2", "bob", List.of(entry("c3", "echo", Risk.MEDIUM))).id)
                .isEqualTo("ap-abcd1234-2");
        assertThat(count("asked")).isEqualTo(3);
    }

    @Test
    void approveResumesEveryCallOnce_andTheIdIsThenUnknown() {
        String id = pending.open("s1", "t1", "bob", List.of(entry("c1", "wipe", Risk.HIGH),
                entry("c2", "echo", Risk.MEDIUM))).id;
        assertThat(pending.answer("s2", id, ApprovalDecision.APPROVE)).as("other stream")
                .isEqualTo(PendingApprovals.Answer.UNKNOWN);
        assertThat(outcomes).isEmpty();
        assertThat(pending.answer("s1", id, ApprovalDecision.APPROVE)).isEqualTo(PendingApprovals.Answer.APPLIED);
        assertThat(outcomes).containsExactly("c1:approved", "c2:approved");
        assertThat(pending.answer("s1", id, ApprovalDecision.DENY)).as("replayed")
                .isEqualTo(PendingApprovals.Answer.UNKNOWN);
        assertThat(pending.answer("s1", "ap-nope-1", ApprovalDecision.DENY)).isEqualTo(PendingApprovals.Answer.UNKNOWN);
        vts.advanceTimeBy(Duration.ofMinutes(1));
        assertThat(outcomes).hasSize(2);
        assertThat(count("approved")).isEqualTo(2);
        assertThat(pending.size()).isZero();
    }

    @Test
    void denyAndExpiryEndTheCallsNotApproved() {
        String denied = pending.open("s1", "t1", "bob", List.of(entry("c1", "wipe", Risk.HIGH))).id;
        pending.open("s1", "t2", "bob", List.of(entry("c2", "wipe", Risk.HIGH)));
        pending.answer("s1", denied, ApprovalDecision.DENY);
        assertThat(outcomes).containsExactly("c1:Tool not executed: the user declined.");
        vts.advanceTimeBy(Duration.ofMillis(4_999));
        assertThat(outcomes).hasSize(1);
        vts.advanceTimeBy(Duration.ofMillis(1));
        assertThat(outcomes).containsExactly("c1:Tool not executed: the user declined.",
                "c2:Tool not executed: no answer to the approval request within 5000 ms.");
        assertThat(count("denied")).isEqualTo(1);
        assertThat(count("expired")).isEqualTo(1);
        assertThat(pending.size()).isZero();
    }

    @Test
    void approveSessionGrantsWhatTheMaxRiskAllows() {
        String id = pending.open("s1", "t1", "bob", List.of(entry("c1", "wipe", Risk.HIGH),
                entry("c2", "echo", Risk.MEDIUM))).id;
        pending.answer("s1", id, ApprovalDecision.APPROVE_SESSION);
        assertThat(outcomes).containsExactly("c1:approved_session", "c2:approved_session");
        CallContext bob = CallContext.builder().userId("bob").groupId("").platform("").permission("").channel("")
                .provider("").model("").agentId("").putAll(Map.of()).build();
        assertThat(rules.check(ToolDefinition.builder("echo").build(), null, "s1", bob).byGrant()).isTrue();
        assertThat(rules.check(ToolDefinition.builder("wipe").build(), Risk.HIGH, "s1", bob).kind())
                .as("high is above sessionMaxRisk medium").isEqualTo(ApprovalRules.Kind.ASK);
    }

    @Test
    void anUnsentRequestEndsItsCallsNotApproved() {
        PendingApprovals.Request r = pending.open("s1", "t1", "bob", List.of(entry("c1", "wipe", Risk.HIGH)));
        pending.abandon(r, "unsent");
        assertThat(outcomes).containsExactly("c1:unsent");
        assertThat(pending.answer("s1", r.id, ApprovalDecision.APPROVE)).isEqualTo(PendingApprovals.Answer.UNKNOWN);
        vts.advanceTimeBy(Duration.ofMinutes(1));
        assertThat(outcomes).hasSize(1);
    }

    @Test
    void withdrawingTheLastCallClosesTheRequest() {
        PendingApprovals.Entry a = entry("c1", "wipe", Risk.HIGH);
        PendingApprovals.Entry b = entry("c2", "wipe", Risk.HIGH);
        PendingApprovals.Request r = pending.open("s1", "t1", "bob", List.of(a, b));
        assertThat(r.withdraw(a.waiter())).isTrue();
        assertThat(r.withdraw(a.waiter())).isFalse();
        assertThat(pending.isOpen(r.id)).isTrue();
        assertThat(r.withdraw(b.waiter())).isTrue();
        assertThat(pending.isOpen(r.id)).isFalse();
        assertThat(pending.answer("s1", r.id, ApprovalDecision.APPROVE)).isEqualTo(PendingApprovals.Answer.UNKNOWN);
        vts.advanceTimeBy(Duration.ofMinutes(1));
        assertThat(outcomes).isEmpty();
        assertThat(count("cancelled")).isEqualTo(2);
    }
}
