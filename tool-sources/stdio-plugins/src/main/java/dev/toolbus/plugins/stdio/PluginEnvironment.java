package dev.toolbus.plugins.stdio;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The environment a plugin process gets: a minimal one, never the host's whole environment (which
 * holds {@code TOOLBUS_TOKEN} and other secrets). It is {@link #BASE} and {@code LC_*} from the host,
 * the manifest's {@code inheritEnv} names, then the manifest's {@code env}, then
 * {@code TOOLBUS_PLUGIN_ID}.
 */
final class PluginEnvironment {

    /** Host variables every plugin gets when the host has them. */
    static final List<String> BASE = List.of("PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR");

    private PluginEnvironment() {
    }

    static Map<String, String> of(PluginManifest m, Map<String, String> host) {
        Map<String, String> env = new LinkedHashMap<>();
        for (String name : BASE) {
            copy(host, name, env);
        }
        host.keySet().stream().filter(k -> k.startsWith("LC_")).sorted().forEach(k -> copy(host, k, env));
        for (String name : m.inheritEnv()) {
            copy(host, name, env);
        }
        env.putAll(m.env());
        env.put("TOOLBUS_PLUGIN_ID", m.id());
        return env;
    }

    private static void copy(Map<String, String> from, String name, Map<String, String> to) {
        String v = from.get(name);
        if (v != null) {
            to.put(name, v);
        }
    }
}
