package dev.toolbus.executor.approval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.Risk;
import dev.toolbus.spi.Principal;
import dev.toolbus.tool.ToolDefinition;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ApprovalRulesTest {

    private final AtomicReference<ApprovalSettings> settings =
            new AtomicReference<>(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
    private final ApprovalRules rules = new ApprovalRules(settings::get);
    private static final Principal LOCAL = Principal.local();

    private static final CallContext BOB = CallContext.builder().userId("bob").groupId("").platform("").permission("")
            .channel("").provider("").model("").agentId("").putAll(Map.of()).build();
    private static final CallContext ANN = CallContext.builder().userId("ann").groupId("").platform("").permission("")
            .channel("").provider("").model("").agentId("").putAll(Map.of()).build();

    private static ToolDefinition tool(String name) {
        return ToolDefinition.builder(name).build();
    }

    private ApprovalRules.Kind kind(String name, Risk declared, CallContext c) {
        return rules.check(tool(name), declared, c, LOCAL).kind();
    }

    @Test
    void offRunsEverythingWithoutClassifying() {
        settings.set(ApprovalSettings.defaults());
        ApprovalRules.Verdict v = rules.check(tool("wipe"), Risk.HIGH, BOB, LOCAL);
        assertThat(v.kind()).isEqualTo(ApprovalRules.Kind.RUN);
        assertThat(v.risk()).isNull();
    }

    @Test
    void autoRunsLowAndAsksForTheRest() {
        assertThat(kind("get_time", null, BOB)).isEqualTo(ApprovalRules.Kind.RUN);
        assertThat(kind("echo", null, BOB)).isEqualTo(ApprovalRules.Kind.ASK);
        ApprovalRules.Verdict v = rules.check(tool("wipe"), Risk.HIGH, BOB, LOCAL);
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
    void aTokenWithoutTheOverrideMayTightenTheModeButNeverLoosenIt() {
        Principal scoped = Principal.token("member").maxPermission("member").build();
        Principal trusted = Principal.token("ops").approvalOverride(true).build();
        CallContext off = context("off");
        assertThat(rules.check(tool("wipe"), Risk.HIGH, off, scoped).kind()).as("M2: off from a scoped token")
                .isEqualTo(ApprovalRules.Kind.ASK);
        assertThat(rules.check(tool("wipe"), Risk.HIGH, off, trusted).kind()).isEqualTo(ApprovalRules.Kind.RUN);
        assertThat(rules.check(tool("get_time"), null, context("confirm_all"), scoped).kind()).as("stricter")
                .isEqualTo(ApprovalRules.Kind.ASK);
        assertThat(rules.check(tool("get_time"), null, context("ask"), scoped).kind())
                .isEqualTo(ApprovalRules.Kind.REFUSE);
        settings.set(ApprovalSettings.builder().mode(ApprovalMode.CONFIRM_ALL).build());
        assertThat(rules.check(tool("get_time"), null, context("auto"), scoped).kind()).as("auto is looser")
                .isEqualTo(ApprovalRules.Kind.ASK);
    }

    @Test
    void aSessionGrantMayCoverWhatTheMaxRiskAllows_andNothingWhenGrantsAreOff() {
        assertThat(rules.check(tool("echo"), null, BOB, LOCAL).grantable()).isTrue();
        assertThat(rules.check(tool("wipe"), Risk.HIGH, BOB, LOCAL).grantable()).as("high is above medium").isFalse();
        assertThat(rules.grantable(Risk.HIGH)).isFalse();
        settings.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).sessionMaxRisk(Risk.HIGH).build());
        assertThat(rules.check(tool("wipe"), Risk.HIGH, BOB, LOCAL).grantable()).isTrue();
        settings.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).sessionGrants(false).build());
        assertThat(rules.check(tool("wipe"), Risk.HIGH, BOB, LOCAL).grantable()).as("grants off").isFalse();
        assertThat(rules.grantable(Risk.LOW)).isFalse();
    }

    private static CallContext context(String mode) {
        return CallContext.builder().userId("bob").putAll(Map.of("approval_mode", mode)).build();
    }
}
