package dev.toolbus.executor.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolbus.text.DescriptionLocale;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExecutionSettingsTest {

    @Test
    void defaultsMatchTheDesign() {
        ExecutionSettings s = ExecutionSettings.defaults();
        assertThat(s.timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.maxParallel()).isEqualTo(5);
        assertThat(s.retryOnError()).isFalse();
        assertThat(s.maxRetries()).isEqualTo(2);
        assertThat(s.cacheResults()).isTrue();
        assertThat(s.cacheTtl()).isEqualTo(Duration.ofMinutes(1));
        assertThat(s.locale()).isEqualTo(DescriptionLocale.EN);
    }

    @Test
    void aValueOutOfRangeIsRefused_namingTheSettingAndItsRange() {
        assertThatThrownBy(() -> ExecutionSettings.builder().maxParallel(50)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxParallel must be 1..20, got 50");
        assertThatThrownBy(() -> ExecutionSettings.builder().maxParallel(0)).hasMessage("maxParallel must be 1..20, got 0");
        assertThatThrownBy(() -> ExecutionSettings.builder().timeoutMs(10)).hasMessageStartingWith("timeoutMs must be 1000..");
        assertThatThrownBy(() -> ExecutionSettings.builder().timeout(Duration.ofMillis(999)))
                .hasMessageStartingWith("timeout must be 1000..").hasMessageEndingWith("got 999 ms");
        assertThatThrownBy(() -> ExecutionSettings.builder().timeout(Duration.ofSeconds(-1)))
                .hasMessageEndingWith("got PT-1S");
        assertThatThrownBy(() -> ExecutionSettings.builder().maxRetries(11)).hasMessage("maxRetries must be 0..10, got 11");
        assertThatThrownBy(() -> ExecutionSettings.builder().cacheTtlMs(-1)).hasMessageStartingWith("cacheTtlMs must be 0..");
        assertThatThrownBy(() -> ExecutionSettings.builder().maxCallsPerTurn(100_001))
                .hasMessage("maxCallsPerTurn must be 1..100000, got 100001");
        assertThatThrownBy(() -> ExecutionSettings.builder().maxResultChars(50))
                .hasMessageStartingWith("maxResultChars must be 0 (never cut) or 100..");
        assertThatThrownBy(() -> ExecutionSettings.builder().maxResultCharsByTool(Map.of("web_*", 7)))
                .hasMessageStartingWith("maxResultCharsByTool.web_* must be 0 (never cut) or 100..");
        assertThatThrownBy(() -> ExecutionSettings.builder().cacheTools(List.of("ok", " ")))
                .hasMessageContaining("cacheTools entries");
        assertThatThrownBy(() -> ExecutionSettings.builder().locale(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void inRangeValuesAreKept_andToBuilderRoundTrips() {
        ExecutionSettings s = ExecutionSettings.builder().maxParallel(20).timeoutMs(1_000).maxRetries(0).cacheTtlMs(0)
                .progressInterval(Duration.ZERO).inputTimeoutMs(1_000).maxResultChars(0)
                .maxResultCharsByTool(Map.of("big", 0, "web_*", 100)).cacheTools(List.of(" lookup ")).locale(DescriptionLocale.ZH)
                .build();
        assertThat(s.maxParallel()).isEqualTo(20);
        assertThat(s.timeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(s.cacheTtl()).isZero();
        assertThat(s.results().maxChars()).isZero();
        assertThat(s.results().byTool()).containsEntry("web_*", 100);
        assertThat(s.cacheTools()).containsExactly("lookup");
        assertThat(s.toBuilder().build()).isEqualTo(s).hasSameHashCodeAs(s);
        assertThat(s).isNotEqualTo(ExecutionSettings.defaults());
        assertThat(ExecutionSettings.defaults()).isSameAs(ExecutionSettings.defaults());
    }
}
