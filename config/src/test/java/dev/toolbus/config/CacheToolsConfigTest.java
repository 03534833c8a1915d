package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 10 item 6: {@code execution.cacheTools} opts plugin tools in to the cache from toolbus.yaml. */
class CacheToolsConfigTest {

    private static ConfigLoader.Loaded parse(String yaml) {
        return ConfigLoader.parse(yaml, Map.<String, String>of()::get);
    }

    @Test
    void theListIsRead_andShownInTheEffectiveConfig() {
        ConfigLoader.Loaded l = parse("""
                execution:
                  cacheTools: [search_web, "weather-*"]
                """);
        assertThat(l.warnings()).isEmpty();
        assertThat(l.config().execution().cacheTools()).containsExactly("search_web", "weather-*");
        assertThat(EffectiveYaml.of(l.config())).contains("cacheTools:", "- search_web", "- weather-*");
    }

    @Test
    void withoutTheKey_noToolIsListed_andABadValueIsWarnedAbout() {
        assertThat(parse("execution: {timeout: 5000}").config().execution().cacheTools()).isEmpty();
        ConfigLoader.Loaded bad = parse("execution: {cacheTools: search_web}");
        assertThat(bad.config().execution().cacheTools()).isEmpty();
        assertThat(bad.warnings()).singleElement().asString().startsWith("execution.cacheTools must be a list");
    }
}
