package dev.toolbus.config;

import dev.toolbus.executor.settings.ExecutionSettings;
import java.util.LinkedHashMap;
import java.util.Map;

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
        ExecutionSettings s = ExecutionSettings.fromMap(raw);
        for (String w : s.warnings()) {
            in.warnings.add(w.startsWith("execution.") ? w : "execution." + w);
        }
        return s;
    }
}
