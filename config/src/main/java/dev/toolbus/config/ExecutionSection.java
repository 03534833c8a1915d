package dev.toolbus.config;

import dev.toolbus.executor.ExecutionSettings;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** Reads the {@code execution} section (its values fall back as {@link ExecutionSettings} says). */
final class ExecutionSection {

    private ExecutionSection() {
    }

    static ExecutionSettings read(ConfigLoader.Reader in, Map<String, Object> root) {
        Object v = root.get("execution");
        if (v == null) {
            if (root.containsKey("execution")) {
                in.warn("execution", "is empty; using the defaults");
            }
            return ExecutionSettings.defaults();
        }
        if (!(v instanceof Map<?, ?> m)) {
            in.warn("execution", "must be a mapping, got " + ConfigLoader.Reader.describe(v) + "; using the defaults");
            return ExecutionSettings.defaults();
        }
        Map<String, Object> raw = new LinkedHashMap<>();
        m.forEach((k, x) -> raw.put(String.valueOf(k), x));
        ExecutionSettings s = ExecutionSettings.fromMap(in.relaxed ? relaxed(in, raw) : raw);
        for (String w : s.warnings()) {
            in.warnings.add(w.startsWith("execution.") ? w : "execution." + w);
        }
        return s;
    }

    /** The keys {@link ExecutionSettings#fromMap} reads. */
    static final Set<String> KEYS = Set.of("timeout", "maxParallel", "retryOnError", "maxRetries", "cacheResults",
            "cacheTTL", "cacheMaxEntries", "locale", "maxMediaBytes", "maxQueuedCalls", "progressIntervalMs",
            "inputTimeoutMs", "cacheMaxBytes", "cacheMaxKeyBytes", "cacheMaxResultBytes", "maxCallsPerTurn",
            "maxResultChars", "maxResultCharsByTool", "resultStoreTtlMs", "resultStoreMaxBytes",
            "resultStoreMaxEntries", "cacheTools");

    /** Relaxed keys renamed to these (unknown ones are left for fromMap to warn about), a comma list split. */
    private static Map<String, Object> relaxed(ConfigLoader.Reader in, Map<String, Object> raw) {
        Map<String, Object> out = new LinkedHashMap<>();
        raw.forEach((k, v) -> out.put(ConfigLoader.Reader.canonical(k, KEYS), v));
        if (out.containsKey("cacheTools")) {
            out.put("cacheTools", in.listValue(out.get("cacheTools")));
        }
        return out;
    }
}
