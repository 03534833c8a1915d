package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.settings.ResultLimits;
import dev.toolbus.text.DescriptionLocale;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The lenient reading of execution values (the file's {@code execution} section, the CLI's flags):
 * every bad value falls back with a warning, never an exception.
 */
class LooseExecutionTest {

    private static Map<String, Object> nullValue(String key) {
        Map<String, Object> m = new HashMap<>();
        m.put(key, null);
        return m;
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
        List<String> warnings = new ArrayList<>();
        ExecutionSettings s = ExecutionSection.read(raw, warnings);
        assertThat(s.timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.maxParallel()).isEqualTo(5);
        assertThat(s.retryOnError()).isFalse();
        assertThat(s.maxRetries()).isEqualTo(10);
        assertThat(s.cacheResults()).isTrue();
        assertThat(s.cacheTtl()).isZero();
        assertThat(s.locale()).isEqualTo(DescriptionLocale.EN);
        assertThat(warnings).hasSize(8);
        assertThat(warnings).anyMatch(w -> w.contains("colour"));
    }

    @Test
    void rangesAreClamped() {
        List<String> w = new ArrayList<>();
        assertThat(ExecutionSection.read(Map.of("timeout", 10), w).timeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(ExecutionSection.read(Map.of("timeout", Double.NaN), w).timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(ExecutionSection.read(nullValue("timeout"), w).timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(ExecutionSection.read(Map.of("maxParallel", 0), w).maxParallel()).isEqualTo(1);
        assertThat(ExecutionSection.read(Map.of("maxParallel", 21), w).maxParallel()).isEqualTo(20);
        assertThat(ExecutionSection.read(Map.of("maxParallel", "7"), w).maxParallel()).isEqualTo(7);
        assertThat(ExecutionSection.read(Map.of("maxRetries", -1), w).maxRetries()).isZero();
        assertThat(w).hasSize(6);
        List<String> none = new ArrayList<>();
        ExecutionSection.read(Map.of("timeout", 5000), none);
        assertThat(none).isEmpty();
    }

    @Test
    void cacheToolsBadValues_fallBackWithAWarning() {
        List<String> w1 = new ArrayList<>();
        ExecutionSettings notAList = ExecutionSection.read(Map.of("cacheTools", "lookup"), w1);
        assertThat(notAList.cacheTools()).isEmpty();
        assertThat(w1).singleElement().asString().contains("cacheTools must be a list");
        List<String> w2 = new ArrayList<>();
        ExecutionSettings badEntry = ExecutionSection.read(Map.of("cacheTools", List.of(" lookup ", 3, "")), w2);
        assertThat(badEntry.cacheTools()).containsExactly("lookup");
        assertThat(w2).hasSize(2);
        assertThat(badEntry.toBuilder().build()).isEqualTo(badEntry.toBuilder().build());
        assertThat(badEntry.toBuilder().build().cacheTools()).containsExactly("lookup");
    }

    @Test
    void cacheBoundsFallBackWithWarnings() {
        List<String> warnings = new ArrayList<>();
        ExecutionSettings s = ExecutionSection.read(Map.of("cacheMaxBytes", 0, "maxCallsPerTurn", "x",
                "cacheMaxKeyBytes", 2048, "cacheMaxResultBytes", 4096), warnings);
        assertThat(s.cacheMaxBytes()).isEqualTo(ExecutionSettings.DEFAULT_CACHE_MAX_BYTES);
        assertThat(s.maxCallsPerTurn()).isEqualTo(ExecutionSettings.DEFAULT_MAX_CALLS_PER_TURN);
        assertThat(s.cacheMaxKeyBytes()).isEqualTo(2048);
        assertThat(s.cacheMaxResultBytes()).isEqualTo(4096);
        assertThat(warnings).hasSize(2);
        assertThat(s.toBuilder().build()).isEqualTo(s);
    }

    @Test
    void resultLimitsFallBackWithWarnings() {
        List<String> warnings = new ArrayList<>();
        ExecutionSettings s = ExecutionSection.read(Map.of("maxResultChars", -5, "resultStoreTtlMs", 10,
                "resultStoreMaxBytes", "lots", "resultStoreMaxEntries", 0,
                "maxResultCharsByTool", new java.util.LinkedHashMap<>(Map.of("a", 5, "b", "x"))), warnings);
        assertThat(s.results().maxChars()).isEqualTo(ResultLimits.DEFAULT_MAX_CHARS);
        assertThat(s.results().storeTtl()).isEqualTo(Duration.ofSeconds(1));
        assertThat(s.results().storeMaxBytes()).isEqualTo(ResultLimits.DEFAULT_STORE_MAX_BYTES);
        assertThat(s.results().storeMaxEntries()).isEqualTo(ResultLimits.DEFAULT_STORE_MAX_ENTRIES);
        assertThat(s.results().byTool()).containsExactly(Map.entry("a", ResultLimits.MIN_MAX_CHARS));
        assertThat(warnings).hasSize(6);
        assertThat(ExecutionSection.read(Map.of("maxResultChars", 50), new ArrayList<>()).results().maxChars()).isEqualTo(100);
        assertThat(ExecutionSection.read(Map.of("maxResultChars", 0), new ArrayList<>()).results().maxChars()).isZero();
        List<String> one = new ArrayList<>();
        ExecutionSection.read(Map.of("maxResultCharsByTool", "x"), one);
        assertThat(one).hasSize(1);
        assertThat(s.toBuilder().build().results()).isEqualTo(s.results());
        assertThat(ExecutionSettings.defaults().results()).isEqualTo(ResultLimits.DEFAULTS);
    }
}
