package dev.toolbus.executor.settings;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.text.DescriptionLocale;
import java.time.Duration;
import java.util.LinkedHashMap;
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
        assertThat(s.warnings()).isEmpty();
    }

    @Test
    void everyBadValueFallsBackWithAWarning() {
        Map<String, Object> raw = new LinkedHashMap<>();
        raw.put("timeout", "abc");
        raw.put("maxParallel", 2.5);
        raw.put("retryOnError", "sometimes");
        raw.put("maxRetries", 99);
        raw.put("cacheResults", 1);
        raw.put("cacheTTL", -5);
        raw.put("locale", "fr");
        raw.put("colour", "blue");
        ExecutionSettings s = ExecutionSettings.fromMap(raw);
        assertThat(s.timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.maxParallel()).isEqualTo(5);
        assertThat(s.retryOnError()).isFalse();
        assertThat(s.maxRetries()).isEqualTo(10);
        assertThat(s.cacheResults()).isTrue();
        assertThat(s.cacheTtl()).isZero();
        assertThat(s.locale()).isEqualTo(DescriptionLocale.EN);
        assertThat(s.warnings()).hasSize(8);
        assertThat(s.warnings()).anyMatch(w -> w.contains("colour"));
    }

    @Test
    void rangesAreClamped() {
        assertThat(ExecutionSettings.builder().timeoutMs(10).build().timeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(ExecutionSettings.builder().timeoutMs(Double.NaN).build().timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(ExecutionSettings.builder().timeoutMs(null).build().timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(ExecutionSettings.builder().maxParallel(0).build().maxParallel()).isEqualTo(1);
        assertThat(ExecutionSettings.builder().maxParallel(21).build().maxParallel()).isEqualTo(20);
        assertThat(ExecutionSettings.builder().maxParallel("7").build().maxParallel()).isEqualTo(7);
        assertThat(ExecutionSettings.builder().maxRetries(-1).build().maxRetries()).isZero();
        assertThat(ExecutionSettings.builder().timeoutMs(5000).build().warnings()).isEmpty();
    }
}
