package dev.toolbus.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code plugins} section: each plugin's configuration by plugin id. A plugin given one here gets
 * it instead of its own {@code plugin.json} {@code config}.
 *
 * @param configs plugin id to its config (YAML values: mappings, lists, scalars), deeply unmodifiable
 */
public record PluginsConfig(Map<String, Map<String, Object>> configs) {

    /** No plugin configured here. */
    public static final PluginsConfig NONE = new PluginsConfig(Map.of());

    @SuppressWarnings("unchecked")
    public PluginsConfig {
        Map<String, Map<String, Object>> copy = new LinkedHashMap<>();
        configs.forEach((id, c) -> copy.put(Objects.requireNonNull(id, "plugin id"),
                (Map<String, Object>) PluginsSection.freeze(Objects.requireNonNull(c, "config"))));
        configs = Collections.unmodifiableMap(copy);
    }

    /** The config of a plugin, or {@code null} when this section gives it none. */
    public Map<String, Object> config(String pluginId) {
        return configs.get(pluginId);
    }
}
