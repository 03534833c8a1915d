package dev.toolbus.plugins.stdio;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * The configuration each plugin is given by the application (toolbus.yaml's
 * {@code plugins.<id>.config}), by plugin id, and changes to it. A plugin that has one gets it as the
 * {@code config} of {@code activate} (with its {@code configVersion}), and, when it changes while the
 * plugin runs, a {@code configure} message with the new one; the process is not restarted. A plugin
 * without one falls back to its own ({@code plugin.json}'s {@code config}, which reaches it as
 * {@code TOOLBUS_PLUGIN_CONFIG}; MaiBot's {@code config.toml}). Thread-safe.
 *
 * <pre>{@code
 * PluginConfigs configs = PluginConfigs.of(Map.of("weather", Map.of("units", "metric")));
 * StdioPluginReloader.start(dir, registry, Duration.ofSeconds(1), Duration.ofMinutes(2), configs);
 * configs.update(Map.of("weather", Map.of("units", "imperial")));   // weather gets "configure"
 * }</pre>
 */
public final class PluginConfigs {

    private static final Logger log = LoggerFactory.getLogger(PluginConfigs.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private volatile Map<String, ObjectNode> configs;
    private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();

    private PluginConfigs(Map<String, ObjectNode> configs) {
        this.configs = configs;
    }

    /** No configuration for any plugin (each uses its own). */
    public static PluginConfigs none() {
        return new PluginConfigs(Map.of());
    }

    /**
     * The configuration of each plugin by id.
     *
     * @param configs plugin id to its config: a map (of maps, lists, strings, numbers, booleans) or a
     *     Jackson object
     * @throws IllegalArgumentException when a config is not an object
     */
    public static PluginConfigs of(Map<String, ?> configs) {
        return new PluginConfigs(convert(configs));
    }

    /**
     * Replaces every plugin's configuration; each running plugin whose configuration changed (given,
     * changed or removed) is told with {@code configure}.
     */
    public void update(Map<String, ?> next) {
        Map<String, ObjectNode> converted = convert(next);
        Map<String, ObjectNode> before;
        synchronized (this) {
            before = configs;
            configs = converted;
        }
        java.util.Set<String> ids = new java.util.LinkedHashSet<>(before.keySet());
        ids.addAll(converted.keySet());
        for (String id : ids) {
            if (!Objects.equals(before.get(id), converted.get(id))) {
                log.info("plugin {}: configuration {}", id, converted.containsKey(id) ? "changed" : "removed (its own applies)");
                for (Consumer<String> l : listeners) {
                    try {
                        l.accept(id);
                    } catch (RuntimeException e) {
                        log.warn("plugin {}: telling it its configuration failed: {}", id, e.toString());
                    }
                }
            }
        }
    }

    /** The configuration of a plugin (a copy), or {@code null} when none is given. */
    public ObjectNode get(String pluginId) {
        ObjectNode c = configs.get(pluginId);
        return c == null ? null : c.deepCopy();
    }

    /**
     * The version of a plugin's configuration: the first 12 hex digits of the SHA-256 of its JSON
     * (MaiBot's {@code on_config_update} passes it on), or {@code ""} when none is given.
     */
    public String version(String pluginId) {
        ObjectNode c = configs.get(pluginId);
        if (c == null) {
            return "";
        }
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(c.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Calls {@code listener} with a plugin id whose configuration changed; disposing it removes it. */
    Disposable onChange(Consumer<String> listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    private static Map<String, ObjectNode> convert(Map<String, ?> configs) {
        Map<String, ObjectNode> out = new LinkedHashMap<>();
        configs.forEach((id, c) -> {
            JsonNode n = c instanceof JsonNode j ? j : JSON.valueToTree(c);
            if (!(n instanceof ObjectNode o)) {
                throw new IllegalArgumentException("the config of plugin '" + id + "' must be an object, got " + n.getNodeType());
            }
            out.put(Objects.requireNonNull(id, "plugin id"), o.deepCopy());
        });
        return Map.copyOf(out);
    }
}
