package dev.toolbus.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads the {@code plugins} section: {@code plugins.<plugin id>.config}, the configuration each plugin
 * is given (MaiBot's {@code self.config}, OpenClaw's {@code api.config}, ChatAI's
 * {@code context.config}, a stdio plugin's {@code activate} and {@code configure}). A plugin id that
 * is not one, or a {@code config} that is not a mapping, is skipped with a warning.
 */
final class PluginsSection {

    /** A plugin id, as {@code plugin.json} allows it. */
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
    /** Keys whose values the effective config masks. */
    private static final Pattern SECRET = Pattern.compile(".*(key|token|secret|password|passwd).*");

    private PluginsSection() {
    }

    static PluginsConfig read(ConfigLoader.Reader in, Map<String, Object> root) {
        Map<String, Object> all = in.section(root, "plugins", "", null);
        Map<String, Map<String, Object>> configs = new LinkedHashMap<>();
        for (String id : all.keySet()) {
            String path = "plugins." + id;
            if (!ID.matcher(id).matches()) {
                in.warn(path, "is not a plugin id (1 to 64 letters, digits, _ . -); ignored");
                continue;
            }
            Map<String, Object> p = in.section(all, id, "plugins", Set.of("config"));
            Object c = p.get("config");
            if (c == null) {
                continue;
            }
            if (!(c instanceof Map<?, ?> m)) {
                in.warn(path + ".config", "must be a mapping, got " + ConfigLoader.Reader.describe(c) + "; ignored");
                continue;
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> config = (Map<String, Object>) m;
            configs.put(id, config);
        }
        return new PluginsConfig(configs);
    }

    /** The section as the effective config prints it: values of keys that look secret masked. */
    static Map<String, Object> effective(PluginsConfig plugins) {
        Map<String, Object> out = new LinkedHashMap<>();
        plugins.configs().forEach((id, config) -> out.put(id, Map.of("config", mask(config))));
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Object mask(Object v) {
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            ((Map<String, Object>) m).forEach((k, x) -> out.put(k,
                    SECRET.matcher(k.toLowerCase(Locale.ROOT)).matches() && !(x instanceof Map) && x != null ? "***" : mask(x)));
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(x -> out.add(mask(x)));
            return out;
        }
        return v;
    }

    /** A deep, unmodifiable copy of YAML values (mappings, lists, scalars; nulls kept). */
    @SuppressWarnings("unchecked")
    static Object freeze(Object v) {
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            ((Map<Object, Object>) m).forEach((k, x) -> out.put(String.valueOf(k), freeze(x)));
            return Collections.unmodifiableMap(out);
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            l.forEach(x -> out.add(freeze(x)));
            return Collections.unmodifiableList(out);
        }
        return v;
    }
}
