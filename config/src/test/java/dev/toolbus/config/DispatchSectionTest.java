package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class DispatchSectionTest {

    @Test
    void off_by_default() {
        Config c = ConfigLoader.parse("{}", k -> null).config();
        assertThat(c.dispatch().enabled()).isFalse();
        assertThat(c.dispatch().maxGroups()).isEqualTo(3);
    }

    @Test
    void reads_chatai_keys_and_the_model_with_env_references() {
        ConfigLoader.Loaded l = ConfigLoader.parse("""
                dispatch:
                  enabled: true
                  useSummary: false
                  maxGroups: 2
                  model: {baseUrl: "http://127.0.0.1:9/v1", name: small, apiKey: "${DISPATCH_KEY}", timeoutMs: 2500}
                """, Map.of("DISPATCH_KEY", "sk-1")::get);
        DispatchConfig d = l.config().dispatch();
        assertThat(l.warnings()).isEmpty();
        assertThat(d.enabled()).isTrue();
        assertThat(d.useSummary()).isFalse();
        assertThat(d.maxGroups()).isEqualTo(2);
        assertThat(d.baseUrl()).isEqualTo("http://127.0.0.1:9/v1");
        assertThat(d.model()).isEqualTo("small");
        assertThat(d.apiKey()).isEqualTo("sk-1");
        assertThat(d.timeoutMs()).isEqualTo(2500);
        assertThat(ConfigLoader.effectiveYaml(l.config())).contains("apiKey: '***'").doesNotContain("sk-1");
    }

    @Test
    void nonsense_falls_back_with_warnings_and_dispatch_stays_off_without_an_endpoint() {
        ConfigLoader.Loaded l = ConfigLoader.parse("""
                dispatch:
                  enabled: true
                  maxGroups: 99
                  model: {name: small}
                """, k -> null);
        assertThat(l.config().dispatch().enabled()).isFalse();
        assertThat(l.config().dispatch().maxGroups()).isEqualTo(20);
        assertThat(l.warnings()).anySatisfy(w -> assertThat(w).contains("dispatch.model").contains("baseUrl"));
        assertThat(l.warnings()).anySatisfy(w -> assertThat(w).contains("dispatch.maxGroups"));
        ConfigLoader.Loaded bad = ConfigLoader.parse("""
                dispatch:
                  enabled: true
                  model: {baseUrl: "ftp://x", name: small}
                """, k -> null);
        assertThat(bad.config().dispatch().enabled()).isFalse();
        assertThat(bad.warnings()).anySatisfy(w -> assertThat(w).contains("not an http(s) URL"));
        ConfigLoader.Loaded odd = ConfigLoader.parse("""
                dispatch:
                  enabled: "yes please"
                  useSummary: 3
                  maxGroups: 0
                  cacheTtlMs: -5
                  model: {baseUrl: "http://127.0.0.1:9/v1", name: small, timeoutMs: 5}
                """, k -> null);
        DispatchConfig d = odd.config().dispatch();
        assertThat(d.enabled()).isFalse();
        assertThat(d.useSummary()).isTrue();
        assertThat(d.maxGroups()).isEqualTo(1);
        assertThat(d.cacheTtlMs()).isZero();
        assertThat(d.timeoutMs()).isEqualTo(100);
        assertThat(String.join("\n", odd.warnings())).contains("dispatch.enabled", "dispatch.useSummary",
                "dispatch.maxGroups", "dispatch.cacheTtlMs", "dispatch.model.timeoutMs");
    }
}
