package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.protocol.Risk;
import dev.toolbus.registry.ToolRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ApprovalSectionTest {

    private static ConfigLoader.Loaded parse(String yaml) {
        return ConfigLoader.parse(yaml, Map.<String, String>of()::get);
    }

    @Test
    void absentSectionIsOffWithTheDefaults() {
        ConfigLoader.Loaded l = parse("mode: hybrid\n");
        ApprovalSettings a = l.config().approval();
        assertThat(l.warnings()).isEmpty();
        assertThat(a.mode()).isEqualTo(ApprovalMode.OFF);
        assertThat(a.timeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(a.sessionGrants()).isTrue();
        assertThat(a.sessionMaxRisk()).isEqualTo(Risk.MEDIUM);
        assertThat(a.dangerousTools()).as("wired from security").contains("kick_member", "write_file");
        assertThat(a.warnings()).isEmpty();
    }

    @Test
    void everyKeyIsRead() {
        ConfigLoader.Loaded l = parse("""
                security: {dangerousTools: [nuke]}
                approval:
                  mode: confirm_all
                  timeoutMs: 5000
                  low: [get_*]
                  medium: [echo]
                  high: [wipe, 'plugin:*']
                  bypass: [ping]
                  sessionGrants: false
                  sessionMaxRisk: high
                  agents:
                    strict: {mode: ask}
                    loose: {mode: off}
                """);
        assertThat(l.warnings()).isEmpty();
        ApprovalSettings a = l.config().approval();
        assertThat(a.mode()).isEqualTo(ApprovalMode.CONFIRM_ALL);
        assertThat(a.timeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(a.low()).containsExactly("get_*");
        assertThat(a.medium()).containsExactly("echo");
        assertThat(a.high()).containsExactly("wipe", "plugin:*");
        assertThat(a.bypass()).containsExactly("ping");
        assertThat(a.sessionGrants()).isFalse();
        assertThat(a.sessionMaxRisk()).isEqualTo(Risk.HIGH);
        assertThat(a.agents()).containsEntry("strict", ApprovalMode.ASK).containsEntry("loose", ApprovalMode.OFF);
        assertThat(a.dangerousTools()).containsExactly("nuke");
    }

    @Test
    void badValuesFallBackWithWarnings() {
        ConfigLoader.Loaded l = parse("""
                approval:
                  mode: yolo
                  timeoutMs: soon
                  low: get_time
                  high: {a: 1}
                  sessionGrants: maybe
                  sessionMaxRisk: extreme
                  colour: blue
                  agents:
                    a1: {mode: sometimes, extra: 1}
                    a2: confirm_all
                """);
        ApprovalSettings a = l.config().approval();
        assertThat(a.mode()).isEqualTo(ApprovalMode.OFF);
        assertThat(a.timeout().toMillis()).isEqualTo(60_000);
        assertThat(a.low()).containsExactly("get_time");
        assertThat(a.high()).isEmpty();
        assertThat(a.sessionGrants()).isTrue();
        assertThat(a.sessionMaxRisk()).isEqualTo(Risk.MEDIUM);
        assertThat(a.agents()).isEmpty();
        assertThat(l.warnings()).containsExactlyInAnyOrder(
                "approval.colour: is not a known setting; ignored",
                "approval.low: should be a list; read as [get_time]",
                "approval.high: must be a list, got a mapping; using an empty list",
                "approval.sessionGrants: 'maybe' is not true or false; using true",
                "approval.agents.a1.extra: is not a known setting; ignored",
                "approval.agents.a2: must be a mapping, got 'confirm_all'; the agent uses the default mode",
                "approval.mode 'yolo' is not off, auto, confirm_all or ask; using off",
                "approval.timeoutMs 'soon' is not a number; using 60000",
                "approval.sessionMaxRisk 'extreme' is not low, medium or high; using medium",
                "approval.agents.a1.mode 'sometimes' is not off, auto, confirm_all or ask; the agent uses the default mode");
        assertThat(a.warnings()).containsExactlyInAnyOrderElementsOf(l.warnings());
    }

    @Test
    void notAMappingIsTheDefaultsWithAWarning() {
        ConfigLoader.Loaded l = parse("approval: auto\n");
        assertThat(l.config().approval().mode()).isEqualTo(ApprovalMode.OFF);
        assertThat(l.warnings()).containsExactly("approval: must be a mapping, got 'auto'; using the defaults");
        assertThat(l.config().approval().warnings()).isNotEmpty();
    }

    @Test
    void effectiveYamlRoundTrips() {
        ConfigLoader.Loaded l = parse("approval: {mode: auto, high: [wipe], agents: {x: {mode: off}, y: {mode: ask}}}\n");
        String yaml = ConfigLoader.effectiveYaml(l.config());
        assertThat(yaml).contains("approval:", "mode: auto", "timeoutMs: 60000", "sessionMaxRisk: medium");
        ConfigLoader.Loaded again = parse(yaml);
        assertThat(again.warnings()).isEmpty();
        assertThat(again.config()).isEqualTo(l.config());
        assertThat(parse(ConfigLoader.effectiveYaml(Config.defaults())).config()).isEqualTo(Config.defaults());
    }

    @Test
    void reloadAppliesLive_butABrokenSectionKeepsTheLastGoodOne() {
        Config first = parse("approval: {mode: auto, high: [wipe]}\n").config();
        LiveConfig live = LiveConfig.create(first, ToolRegistry.create());
        assertThat(live.approval().get().mode()).isEqualTo(ApprovalMode.AUTO);
        live.apply(parse("approval: {mode: confirm_all}\n").config());
        assertThat(live.approval().get().mode()).isEqualTo(ApprovalMode.CONFIRM_ALL);
        live.apply(parse("approval: {mode: confrim_all, high: [x]}\ntools: {deny: [y]}\n").config());
        assertThat(live.approval().get().mode()).as("fail closed").isEqualTo(ApprovalMode.CONFIRM_ALL);
        assertThat(live.approval().get().high()).isEmpty();
        assertThat(live.policy().config().tools().deny()).as("the rest applies").containsExactly("y");
        live.apply(parse("approval: nonsense\n").config());
        assertThat(live.approval().get().mode()).isEqualTo(ApprovalMode.CONFIRM_ALL);
        live.apply(parse("").config());
        assertThat(live.approval().get().mode()).as("removing the section is a valid edit").isEqualTo(ApprovalMode.OFF);
        assertThat(List.of(live.current().approval())).allMatch(a -> a.warnings().isEmpty());
    }
}
