package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.settings.ResultLimits;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 11.4: the result size keys of {@code execution}, their fallbacks and the effective config. */
class ResultLimitsConfigTest {

    private static ConfigLoader.Loaded parse(String yaml) {
        return ConfigLoader.parse(yaml, Map.<String, String>of()::get);
    }

    @Test
    void theKeysAreRead() {
        ConfigLoader.Loaded l = parse("""
                execution:
                  maxResultChars: 8000
                  maxResultCharsByTool:
                    web_fetch: 50000
                    "mcp_*": 4000
                    raw_dump: 0
                  resultStoreTtlMs: 600000
                  resultStoreMaxBytes: 1048576
                  resultStoreMaxEntries: 50
                """);
        assertThat(l.warnings()).isEmpty();
        ResultLimits r = l.config().execution().results();
        assertThat(r.maxChars()).isEqualTo(8000);
        assertThat(r.byTool()).containsExactly(Map.entry("web_fetch", 50000), Map.entry("mcp_*", 4000),
                Map.entry("raw_dump", 0));
        assertThat(r.storeTtl()).isEqualTo(Duration.ofMinutes(10));
        assertThat(r.storeMaxBytes()).isEqualTo(1_048_576);
        assertThat(r.storeMaxEntries()).isEqualTo(50);
        assertThat(EffectiveYaml.of(l.config())).contains("maxResultChars: 8000", "web_fetch: 50000",
                "resultStoreTtlMs: 600000", "resultStoreMaxBytes: 1048576", "resultStoreMaxEntries: 50");
    }

    @Test
    void theDefaultsWithoutTheKeys() {
        ResultLimits r = parse("execution: {timeout: 5000}").config().execution().results();
        assertThat(r).isEqualTo(ResultLimits.DEFAULTS);
        assertThat(r.maxChars()).isEqualTo(20_000);
        assertThat(r.storeTtl()).isEqualTo(Duration.ofMinutes(30));
    }

    @Test
    void nonsenseFallsBackWithWarnings() {
        ConfigLoader.Loaded l = parse("""
                execution:
                  maxResultChars: lots
                  maxResultCharsByTool: [web_fetch]
                  resultStoreTtlMs: -1
                  resultStoreMaxBytes: 0
                  resultStoreMaxEntries: 2.5
                """);
        ResultLimits r = l.config().execution().results();
        assertThat(r).isEqualTo(ResultLimits.builder().maxChars(20_000).byTool(Map.of())
                .storeTtl(Duration.ofSeconds(1)).storeMaxBytes(ResultLimits.DEFAULT_STORE_MAX_BYTES)
                .storeMaxEntries(ResultLimits.DEFAULT_STORE_MAX_ENTRIES).build());
        assertThat(l.warnings()).hasSize(5).allSatisfy(w -> assertThat(w).startsWith("execution."));
        assertThat(l.warnings()).anySatisfy(w -> assertThat(w).contains("maxResultChars 'lots'"))
                .anySatisfy(w -> assertThat(w).contains("maxResultCharsByTool must be a mapping"));
        ConfigLoader.Loaded small = parse("execution: {maxResultChars: 10, maxResultCharsByTool: {a: -3, b: x, c: 7}}");
        assertThat(small.config().execution().results().maxChars()).isEqualTo(100);
        assertThat(small.config().execution().results().byTool()).containsExactly(Map.entry("c", 100));
        assertThat(small.warnings()).hasSize(4);
    }
}
