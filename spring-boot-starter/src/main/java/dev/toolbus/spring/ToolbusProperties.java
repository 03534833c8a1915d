package dev.toolbus.spring;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.toolbus.config.Config;
import dev.toolbus.config.ConfigLoader;
import dev.toolbus.protocol.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The {@code toolbus.*} properties of the application, read as a {@code toolbus.yaml} document: the
 * same keys ({@code toolbus.execution.maxParallel}, {@code toolbus.tools.deny[0]}, {@code toolbus.bus.type},
 * …) with the same defaults, fallbacks and warnings, because they go through the same loader.
 *
 * <p>Keys of the starter itself: {@code toolbus.enabled} (default true), {@code toolbus.shutdownTimeout}
 * (default 30 s), and {@code toolbus.gateway.enabled}, which in an application defaults to
 * <em>false</em> (the gateway is a second server: start it only when asked).
 *
 * @param config the loaded config
 * @param warnings what fell back to a default, and why
 * @param gatewayEnabled whether the gateway was switched on explicitly
 * @param shutdownTimeout how long running turns get to finish when the context closes
 */
public record ToolbusProperties(Config config, List<String> warnings, boolean gatewayEnabled, Duration shutdownTimeout) {

    private static final Duration DEFAULT_SHUTDOWN = Duration.ofSeconds(30);
    /** The top-level keys of toolbus.yaml; other toolbus.* properties are not read as config. */
    private static final java.util.Set<String> SECTIONS = java.util.Set.of("mode", "sources", "groups", "security",
            "tools", "execution", "bus", "gateway", "documents", "approval", "dispatch", "limits");

    public ToolbusProperties {
        warnings = List.copyOf(warnings);
    }

    /** Reads {@code toolbus.*} from the environment. */
    public static ToolbusProperties from(Environment environment) {
        Binder binder = Binder.get(environment);
        Map<String, Object> tree = binder.bind("toolbus", Bindable.mapOf(String.class, Object.class))
                .orElseGet(LinkedHashMap::new);
        Map<String, Object> doc = new LinkedHashMap<>();
        // only the sections of toolbus.yaml: relaxed binding also turns environment variables such as
        // TOOLBUS_TOKEN or TOOLBUS_ROOT into toolbus.* properties, which are not config keys
        tree.forEach((k, v) -> {
            if (SECTIONS.contains(k)) {
                doc.put(k, normalise(v));
            }
        });
        boolean gateway = binder.bind("toolbus.gateway.enabled", Boolean.class).orElse(false);
        Duration shutdown = binder.bind("toolbus.shutdown-timeout", Duration.class).orElse(DEFAULT_SHUTDOWN);
        doc.remove("enabled");
        doc.remove("shutdownTimeout");
        doc.remove("shutdown-timeout");
        String json;
        try {
            json = Json.mapper().writeValueAsString(doc);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot read the toolbus.* properties: " + e.getOriginalMessage(), e);
        }
        // JSON is YAML: the properties take exactly the path of a toolbus.yaml file
        ConfigLoader.Loaded loaded = ConfigLoader.parse(json, environment::getProperty);
        return new ToolbusProperties(loaded.config(), loaded.warnings(), gateway, shutdown);
    }

    /** Maps bound from indexed properties ({@code deny[0]}) arrive keyed "0", "1", …: make them lists again. */
    @SuppressWarnings("unchecked")
    private static Object normalise(Object v) {
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            ((Map<String, Object>) m).forEach((k, x) -> out.put(k, normalise(x)));
            if (!out.isEmpty() && indexed(out.keySet())) {
                List<Object> list = new ArrayList<>(out.size());
                for (int i = 0; i < out.size(); i++) {
                    list.add(out.get(String.valueOf(i)));
                }
                return list;
            }
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            for (Object x : l) {
                out.add(normalise(x));
            }
            return out;
        }
        if (v instanceof String s) {
            return scalar(s);
        }
        return v;
    }

    private static boolean indexed(java.util.Set<String> keys) {
        for (int i = 0; i < keys.size(); i++) {
            if (!keys.contains(String.valueOf(i))) {
                return false;
            }
        }
        return true;
    }

    /** Property values are strings; give the loader the YAML scalar they spell. */
    private static Object scalar(String s) {
        if (s.equals("true") || s.equals("false")) {
            return Boolean.parseBoolean(s);
        }
        if (s.matches("-?\\d{1,18}")) {
            return Long.parseLong(s);
        }
        return s;
    }
}
