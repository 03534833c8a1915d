package dev.toolbus.executor.approval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.Risk;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ApprovalSettingsTest {

    private static CallContext ctx(String agent, Object turnMode) {
        return new CallContext("u", "", "", "", "", "", "", agent,
                turnMode == null ? Map.of() : Map.of(ApprovalSettings.CONTEXT_KEY, turnMode));
    }

    @Test
    void defaultsAreOffSixtySecondsGrantsUpToMedium() {
        ApprovalSettings s = ApprovalSettings.defaults();
        assertThat(s.mode()).isEqualTo(ApprovalMode.OFF);
        assertThat(s.timeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(s.sessionGrants()).isTrue();
        assertThat(s.sessionMaxRisk()).isEqualTo(Risk.MEDIUM);
        assertThat(s.low()).isEmpty();
        assertThat(s.bypass()).isEmpty();
        assertThat(s.warnings()).isEmpty();
    }

    @Test
    void badValuesFallBackWithWarnings() {
        ApprovalSettings s = ApprovalSettings.builder().mode("yolo").timeoutMs("soon").sessionMaxRisk("extreme")
                .agent("a1", "sometimes").build();
        assertThat(s.mode()).isEqualTo(ApprovalMode.OFF);
        assertThat(s.timeout().toMillis()).isEqualTo(60_000);
        assertThat(s.sessionMaxRisk()).isEqualTo(Risk.MEDIUM);
        assertThat(s.agents()).isEmpty();
        assertThat(s.warnings()).containsExactly(
                "mode 'yolo' is not off, auto, confirm_all or ask; using off",
                "timeoutMs 'soon' is not a number; using 60000",
                "sessionMaxRisk 'extreme' is not low, medium or high; using medium",
                "agents.a1.mode 'sometimes' is not off, auto, confirm_all or ask; the agent uses the default mode");
        assertThat(ApprovalSettings.builder().timeoutMs(5).build().timeout().toMillis()).isEqualTo(1_000);
        assertThat(ApprovalSettings.builder().timeoutMs(1e12).build().timeout().toMillis())
                .isEqualTo(ApprovalSettings.MAX_TIMEOUT_MS);
        assertThat(ApprovalSettings.builder().timeoutMs("2500").build().timeout().toMillis()).isEqualTo(2_500);
    }

    @Test
    void modesParseCaseInsensitively() {
        assertThat(ApprovalMode.parse("CONFIRM_ALL")).isEqualTo(ApprovalMode.CONFIRM_ALL);
        assertThat(ApprovalMode.parse(" confirm-all ")).isEqualTo(ApprovalMode.CONFIRM_ALL);
        assertThat(ApprovalMode.parse("Auto")).isEqualTo(ApprovalMode.AUTO);
        assertThat(ApprovalMode.parse("yolo")).isNull();
        assertThat(ApprovalMode.parse(3)).isNull();
        assertThat(ApprovalMode.ASK.wireName()).isEqualTo("ask");
    }

    @Test
    void turnBeatsAgentBeatsConfig() {
        ApprovalSettings s = ApprovalSettings.builder().mode("auto").agent("strict", "confirm_all").build();
        assertThat(s.modeFor(ctx("", null))).isEqualTo(ApprovalMode.AUTO);
        assertThat(s.modeFor(ctx("other", null))).isEqualTo(ApprovalMode.AUTO);
        assertThat(s.modeFor(ctx("strict", null))).isEqualTo(ApprovalMode.CONFIRM_ALL);
        assertThat(s.modeFor(ctx("strict", "ask"))).isEqualTo(ApprovalMode.ASK);
        assertThat(s.modeFor(ctx("", "off"))).isEqualTo(ApprovalMode.OFF);
        assertThat(s.modeFor(ctx("strict", "bogus"))).as("unreadable per-turn value ignored")
                .isEqualTo(ApprovalMode.CONFIRM_ALL);
        assertThat(s.modeFor(ctx("", 42))).isEqualTo(ApprovalMode.AUTO);
        assertThat(s.modeFor(null)).isEqualTo(ApprovalMode.AUTO);
    }
}
