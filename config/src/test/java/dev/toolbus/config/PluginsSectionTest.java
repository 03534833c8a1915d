package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolbus.registry.ToolRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** {@code plugins.<id>.config}: read, checked, frozen, masked in the effective config, applied live. */
class PluginsSectionTest {

    @Test
    void none_by_default() {
        assertThat(ConfigLoader.parse("{}", k -> null).config().plugins().configs()).isEmpty();
        assertThat(Config.defaults().plugins()).isEqualTo(PluginsConfig.NONE);
    }

    @Test
    void reads_each_plugins_config_with_env_references_and_freezes_it() {
        ConfigLoader.Loaded l = ConfigLoader.parse("""
                plugins:
                  weather:
                    config:
                      units: metric
                      apiKey: "${WEATHER_KEY}"
                      cities: [Oslo, Paris]
                      nested: {depth: 2, empty: null}
                  search-plugin:
                    config: {limit: 5}
                """, Map.of("WEATHER_KEY", "k-123")::get);
        assertThat(l.warnings()).isEmpty();
        Map<String, Object> weather = l.config().plugins().config("weather");
        assertThat(weather).containsEntry("units", "metric").containsEntry("apiKey", "k-123")
                .containsEntry("cities", List.of("Oslo", "Paris"));
        assertThat(((Map<?, ?>) weather.get("nested")).get("empty")).isNull();
        assertThat(l.config().plugins().config("search-plugin")).containsEntry("limit", 5);
        assertThat(l.config().plugins().config("other")).isNull();
        assertThatThrownBy(() -> weather.put("x", 1)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> ((List<Object>) weather.get("cities")).add("Rome"))
                .isInstanceOf(UnsupportedOperationException.class);
        String effective = ConfigLoader.effectiveYaml(l.config());
        assertThat(effective).contains("units: metric").contains("apiKey: '***'").doesNotContain("k-123");
    }

    @Test
    void bad_entries_are_skipped_with_warnings() {
        ConfigLoader.Loaded l = ConfigLoader.parse("""
                plugins:
                  "bad id!":
                    config: {a: 1}
                  listy:
                    config: [1, 2]
                  extra:
                    config: {a: 1}
                    enabled: true
                """, k -> null);
        assertThat(l.config().plugins().configs()).containsOnlyKeys("extra");
        assertThat(l.warnings()).anySatisfy(w -> assertThat(w).contains("plugins.bad id!").contains("not a plugin id"));
        assertThat(l.warnings()).anySatisfy(w -> assertThat(w).contains("plugins.listy.config").contains("mapping"));
        assertThat(l.warnings()).anySatisfy(w -> assertThat(w).contains("plugins.extra.enabled"));
    }

    @Test
    void a_reload_with_new_plugin_configs_needs_no_restart_and_tells_the_listeners() {
        Config first = ConfigLoader.parse("plugins: {weather: {config: {units: metric}}}", k -> null).config();
        Config second = ConfigLoader.parse("plugins: {weather: {config: {units: imperial}}}", k -> null).config();
        assertThat(first).isNotEqualTo(second);
        LiveConfig live = LiveConfig.create(first, ToolRegistry.create());
        List<LiveConfig.Reload> heard = new CopyOnWriteArrayList<>();
        var listening = live.onReload(heard::add);
        LiveConfig.Reload r = live.apply(second);
        assertThat(r.restartNeeded()).isEmpty();
        assertThat(heard).singleElement().satisfies(h ->
                assertThat(h.config().plugins().config("weather")).containsEntry("units", "imperial"));
        listening.dispose();
        live.apply(first);
        assertThat(heard).hasSize(1);
    }
}
