package dev.toolbus.config;

import dev.toolbus.limits.Limits;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the {@code limits} section of {@code toolbus.yaml} (its values fall back as {@link Limits#fromMap}
 * says; every warning is also kept in {@link Limits#warnings()}, which {@link LiveConfig} reads to keep
 * the last good limits on a reload):
 * <pre>{@code
 * limits:
 *   store: memory            # memory (default) | redis: buckets shared by every instance
 *   rules:
 *     - name: search-per-user
 *       tools: [web_search]
 *       rate: 10
 *       periodMs: 60000
 *       per: user
 *     - name: one-browser
 *       plugins: [browser]
 *       concurrency: 1
 *     - name: per-turn
 *       maxCallsPerTool: 3
 *       maxCallsPerTurn: 20
 * }</pre>
 */
final class LimitsSection {

    static final String KEY = "limits";

    private LimitsSection() {
    }

    static Limits read(ConfigLoader.Reader in, Map<String, Object> root) {
        Object v = root.get(KEY);
        if (v == null) {
            if (root.containsKey(KEY)) {
                in.warn(KEY, "is empty; no limits");
            }
            return Limits.NONE;
        }
        if (!(v instanceof Map<?, ?> m)) {
            String w = "must be a mapping, got " + ConfigLoader.Reader.describe(v) + "; no limits";
            in.warn(KEY, w);
            return Limits.builder().warn(w).build();
        }
        Map<String, Object> raw = new LinkedHashMap<>();
        m.forEach((k, x) -> raw.put(String.valueOf(k), x));
        Limits l = Limits.fromMap(in.relaxed ? relaxed(in, raw) : raw);
        for (String w : l.warnings()) {
            in.warnings.add(KEY + "." + w);
        }
        return l;
    }

    /** The keys {@link Limits#fromMap} reads, and those of each rule. */
    static final Set<String> KEYS = Set.of("store", "redisUrl", "maxKeys", "rules");
    static final Set<String> RULE_KEYS = Set.of("name", "tools", "plugins", "sources", "users", "streams", "agents",
            "rate", "periodMs", "burst", "per", "shared", "concurrency", "maxCallsPerTool", "maxCallsPerTurn");
    private static final Set<String> RULE_LISTS = Set.of("tools", "plugins", "sources", "users", "streams", "agents");

    /** Relaxed keys renamed to these (unknown ones are left for fromMap to warn about), comma lists split. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> relaxed(ConfigLoader.Reader in, Map<String, Object> raw) {
        Map<String, Object> out = new LinkedHashMap<>();
        raw.forEach((k, v) -> out.put(ConfigLoader.Reader.canonical(k, KEYS), v));
        if (out.get("rules") instanceof List<?> rules) {
            List<Object> copy = new ArrayList<>(rules.size());
            for (Object r : rules) {
                if (r instanceof Map<?, ?> rule) {
                    Map<String, Object> c = new LinkedHashMap<>();
                    ((Map<String, Object>) rule).forEach((k, v) -> {
                        String key = ConfigLoader.Reader.canonical(k, RULE_KEYS);
                        c.put(key, RULE_LISTS.contains(key) ? in.listValue(v) : v);
                    });
                    copy.add(c);
                } else {
                    copy.add(r);
                }
            }
            out.put("rules", copy);
        }
        return out;
    }

    /** The section as {@code effectiveYaml} prints it (a password in the URL masked). */
    static Map<String, Object> effective(Limits l) {
        Map<String, Object> m = l.toMap();
        m.put("redisUrl", EffectiveYaml.maskUrl(l.redisUrl()));
        return m;
    }
}
