package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.protocol.Risk;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The lenient reading of approval values (the file's section, the CLI's flags): bad values fall back, warned. */
class LooseApprovalTest {

    @Test
    void badValuesFallBackWithWarnings() {
        List<String> flags = new ArrayList<>();
        ApprovalSettings flagged = ApprovalSection.read(ApprovalSettings.defaults(),
                Map.of("mode", "yolo", "timeoutMs", "soon"), flags);
        assertThat(flagged.mode()).isEqualTo(ApprovalMode.OFF);
        assertThat(flagged.timeout().toMillis()).isEqualTo(60_000);
        assertThat(flags).containsExactlyInAnyOrder("mode 'yolo' is not off, auto, confirm_all or ask; using off",
                "timeoutMs 'soon' is not a number; using 60000");
        assertThat(flagged.warnings()).containsExactlyInAnyOrderElementsOf(flags);
        ConfigLoader.Loaded l = ConfigLoader.parse("""
                approval:
                  mode: yolo
                  timeoutMs: soon
                  sessionMaxRisk: extreme
                  agents:
                    a1: {mode: sometimes}
                """, Map.<String, String>of()::get);
        ApprovalSettings s = l.config().approval();
        assertThat(s.mode()).isEqualTo(ApprovalMode.OFF);
        assertThat(s.timeout().toMillis()).isEqualTo(60_000);
        assertThat(s.sessionMaxRisk()).isEqualTo(Risk.MEDIUM);
        assertThat(s.agents()).isEmpty();
        assertThat(s.warnings()).containsExactly(
                "approval.mode 'yolo' is not off, auto, confirm_all or ask; using off",
                "approval.timeoutMs 'soon' is not a number; using 60000",
                "approval.sessionMaxRisk 'extreme' is not low, medium or high; using medium",
                "approval.agents.a1.mode 'sometimes' is not off, auto, confirm_all or ask; the agent uses the default mode");
        List<String> w = new ArrayList<>();
        assertThat(ApprovalSection.read(ApprovalSettings.defaults(), Map.of("timeoutMs", 5), w).timeout().toMillis())
                .isEqualTo(1_000);
        assertThat(ApprovalSection.read(ApprovalSettings.defaults(), Map.of("timeoutMs", 1e12), w).timeout().toMillis())
                .isEqualTo(ApprovalSettings.MAX_TIMEOUT_MS);
        assertThat(ApprovalSection.read(ApprovalSettings.defaults(), Map.of("timeoutMs", "2500"), w).timeout().toMillis())
                .isEqualTo(2_500);
        assertThat(w).hasSize(2);
    }
}
