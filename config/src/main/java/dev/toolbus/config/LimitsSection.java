package dev.toolbus.config;

import dev.toolbus.executor.limits.Limits;
import java.util.LinkedHashMap;
import java.util.Map;

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
        Limits l = Limits.fromMap(raw);
        for (String w : l.warnings()) {
            in.warnings.add(KEY + "." + w);
        }
        return l;
    }

    /** The section as {@code effectiveYaml} prints it (a password in the URL masked). */
    static Map<String, Object> effective(Limits l) {
        Map<String, Object> m = l.toMap();
        m.put("redisUrl", EffectiveYaml.maskUrl(l.redisUrl()));
        return m;
    }
}
