package dev.toolbus.executor.approval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.Risk;
import dev.toolbus.tool.ToolDefinition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ApprovalRulesTest {

    private final AtomicLong nanos = new AtomicLong(1_000);
    private final AtomicReference<ApprovalSettings> settings =
            new AtomicReference<>(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
    private final ApprovalRules rules = new ApprovalRules(settings::get, nanos::get);

    private static final CallContext BOB = CallContext.builder().userId("bob").groupId("").platform("").permission("")
            .channel("").provider("").model("").agentId("").putAll(Map.of()).build();
    private static final CallContext ANN = CallContext.builder().userId("ann").groupId("").platform("").permission("")
            .channel("").provider("").model("").agentId("").putAll(Map.of()).build();

    private static ToolDefinition tool(String name) {
        return ToolDefinition.builder(name).build();
    }

    private ApprovalRules.Kind kind(String name, Risk declared, CallContext c) {
        return rules.check(tool(name), declared, "s1", c).kind();
    }

    @Test
    void offRunsEverythingWithoutClassifying() {
        settings.set(ApprovalSettings.defaults());
        ApprovalRules.Verdict v = rules.check(tool("wipe"), Risk.HIGH, "s1", BOB);
        assertThat(v.kind()).isEqualTo(ApprovalRules.Kind.RUN);
        assertThat(v.risk()).isNull();
    }

    @Test
    void autoRunsLowAndAsksForTheRest() {
        assertThat(kind("get_time", null, BOB)).isEqualTo(ApprovalRules.Kind.RUN);
        assertThat(kind("echo", null, BOB)).isEqualTo(ApprovalRules.Kind.ASK);
        ApprovalRules.Verdict v = rules.check(tool("wipe"), Risk.HIGH, "s1", BOB);
        assertThat(v.kind()).isEqualTo(ApprovalRules.Kind.ASK);
        assertThat(v.risk()).isEqualTo(Risk.HIGH);
    }

    @Test
    void confirmAllAsksForLowToo() {
        settings.set(ApprovalSettings.builder().mode(ApprovalMode.CONFIRM_ALL).build());
        assertThat(kind("get_time", null, BOB)).isEqualTo(ApprovalRules.Kind.ASK);
    }

    @Test
    void askRefusesEverythingEvenBypassed() {
        settings.set(ApprovalSettings.builder().mode(ApprovalMode.ASK).bypass(List.of("get_time")).build());
        assertThat(kind("get_time", null, BOB)).isEqualTo(ApprovalRules.Kind.REFUSE);
    }

    @Test
    void bypassRunsWithoutAsking() {
        settings.set(ApprovalSettings.builder().mode(ApprovalMode.CONFIRM_ALL).bypass(List.of("wipe")).build());
        assertThat(kind("wipe", Risk.HIGH, BOB)).isEqualTo(ApprovalRules.Kind.RUN);
    }

    @Test
    void perTurnModeOverridesTheConfig() {
        CallContext off = CallContext.builder().userId("bob").groupId("").platform("").permission("").channel("")
                .provider("").model("").agentId("").putAll(Map.of("approval_mode", "off")).build();
        assertThat(kind("wipe", Risk.HIGH, off)).isEqualTo(ApprovalRules.Kind.RUN);
    }

    @Test
    void sessionGrantsCoverOneUserOneStreamOneToolForTwoHours() {
        assertThat(rules.grant("s1", "bob", "echo", Risk.MEDIUM)).isTrue();
        ApprovalRules.Verdict v = rules.check(tool("echo"), null, "s1", BOB);
        assertThat(v.kind()).isEqualTo(ApprovalRules.Kind.RUN);
        assertThat(v.byGrant()).isTrue();
        assertThat(kind("echo", null, ANN)).as("other user").isEqualTo(ApprovalRules.Kind.ASK);
        assertThat(rules.check(tool("echo"), null, "s2", BOB).kind()).as("other stream")
                .isEqualTo(ApprovalRules.Kind.ASK);
        assertThat(kind("add", null, BOB)).as("other tool").isEqualTo(ApprovalRules.Kind.ASK);
        nanos.addAndGet(Duration.ofHours(2).minusSeconds(1).toNanos());
        assertThat(kind("echo", null, BOB)).isEqualTo(ApprovalRules.Kind.RUN);
        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        assertThat(kind("echo", null, BOB)).as("expired").isEqualTo(ApprovalRules.Kind.ASK);
    }

    @Test
    void grantsStopAtTheMaxRiskAndCanBeSwitchedOff() {
        assertThat(rules.grant("s1", "bob", "wipe", Risk.HIGH)).isFalse();
        assertThat(kind("wipe", Risk.HIGH, BOB)).isEqualTo(ApprovalRules.Kind.ASK);
        settings.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).sessionMaxRisk(Risk.HIGH).build());
        assertThat(rules.grant("s1", "bob", "wipe", Risk.HIGH)).isTrue();
        assertThat(kind("wipe", Risk.HIGH, BOB)).isEqualTo(ApprovalRules.Kind.RUN);
        settings.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).sessionGrants(false).build());
        assertThat(kind("wipe", Risk.HIGH, BOB)).as("grants off: existing grants ignored")
                .isEqualTo(ApprovalRules.Kind.ASK);
        assertThat(rules.grant("s1", "bob", "echo", Risk.LOW)).isFalse();
    }

    @Test
    void grantsAreBoundedInEntriesAndKeyLength() {
        for (int i = 0; i < ApprovalSettings.GRANT_CAPACITY + 500; i++) {
            rules.grant("s" + i, "bob", "echo", Risk.LOW);
        }
        assertThat(rules.grantCount()).isLessThanOrEqualTo(ApprovalSettings.GRANT_CAPACITY);
        String longKey = SessionGrants.key("s".repeat(10_000), "u", "t");
        assertThat(longKey).hasSize(65).startsWith("#");
        assertThat(SessionGrants.key("s", "u", "t")).isEqualTo("s\u0000u\u0000t");
    }
}
