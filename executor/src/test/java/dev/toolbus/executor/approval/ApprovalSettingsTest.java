package dev.toolbus.executor.approval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.Risk;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ApprovalSettingsTest {

    private static CallContext ctx(String agent, Object turnMode) {
        return CallContext.builder().userId("u").groupId("").platform("").permission("").channel("").provider("")
                .model("").agentId(agent)
                .putAll(turnMode == null ? Map.of() : Map.of(ApprovalSettings.CONTEXT_KEY, turnMode)).build();
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
    void theBuilderRefusesWhatTheConfigReaderWouldHaveFixed() {
        assertThatThrownBy(() -> ApprovalSettings.builder().timeoutMs(5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timeout must be 1000..86400000 ms, got 5 ms");
        assertThatThrownBy(() -> ApprovalSettings.builder().timeout(Duration.ofDays(2)))
                .hasMessage("timeout must be 1000..86400000 ms, got 172800000 ms");
        assertThatThrownBy(() -> ApprovalSettings.builder().mode(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> ApprovalSettings.builder().agent(" ", ApprovalMode.ASK))
                .hasMessage("an agent needs a non-blank id");
        assertThatThrownBy(() -> ApprovalSettings.builder().high(List.of("wipe", "")))
                .hasMessageContaining("high entries");
        ApprovalSettings s = ApprovalSettings.builder().mode(ApprovalMode.AUTO).timeoutMs(2_500)
                .sessionMaxRisk(Risk.HIGH).agent("a1", ApprovalMode.ASK).build();
        assertThat(s.timeout().toMillis()).isEqualTo(2_500);
        assertThat(s.agents()).containsEntry("a1", ApprovalMode.ASK);
        assertThat(s.warnings()).as("the builder records no warning").isEmpty();
        assertThat(s.toBuilder().build()).isEqualTo(s);
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
        ApprovalSettings s = ApprovalSettings.builder().mode(ApprovalMode.AUTO)
                .agent("strict", ApprovalMode.CONFIRM_ALL).build();
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
