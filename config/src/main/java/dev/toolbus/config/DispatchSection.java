package dev.toolbus.config;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** Reads the {@code dispatch} section (ChatAI's keys, with {@code model} for the endpoint). */
final class DispatchSection {

    private DispatchSection() {
    }

    static DispatchConfig read(ConfigLoader.Reader in, Map<String, Object> root) {
        Map<String, Object> m = in.section(root, "dispatch", "",
                Set.of("enabled", "useSummary", "maxGroups", "model", "cacheTtlMs", "maxConcurrent"));
        DispatchConfig d = DispatchConfig.DEFAULTS;
        Map<String, Object> model = in.section(m, "model", "dispatch",
                Set.of("baseUrl", "name", "apiKey", "timeoutMs"));
        boolean enabled = in.bool(m, "enabled", "dispatch", false);
        String baseUrl = Objects.requireNonNullElse(in.string(model, "baseUrl", "dispatch.model", ""), "").strip();
        String name = Objects.requireNonNullElse(in.string(model, "name", "dispatch.model", ""), "").strip();
        if (enabled && (baseUrl.isEmpty() || name.isEmpty())) {
            in.warn("dispatch.model", "needs baseUrl and name; dispatch stays off");
            enabled = false;
        } else if (enabled && !baseUrl.startsWith("http://") && !baseUrl.startsWith("https://")) {
            in.warn("dispatch.model.baseUrl", "'" + baseUrl + "' is not an http(s) URL; dispatch stays off");
            enabled = false;
        }
        return DispatchConfig.builder()
                .enabled(enabled)
                .useSummary(in.bool(m, "useSummary", "dispatch", true))
                .maxGroups((int) in.integer(m, "maxGroups", "dispatch", d.maxGroups(), 1, DispatchConfig.MAX_GROUPS))
                .baseUrl(baseUrl)
                .model(name)
                .apiKey(Objects.requireNonNullElse(in.string(model, "apiKey", "dispatch.model", ""), ""))
                .timeoutMs(in.integer(model, "timeoutMs", "dispatch.model", d.timeoutMs(),
                        DispatchConfig.MIN_TIMEOUT_MS, DispatchConfig.MAX_TIMEOUT_MS))
                .cacheTtlMs(in.integer(m, "cacheTtlMs", "dispatch", d.cacheTtlMs(), 0, DispatchConfig.MAX_CACHE_TTL_MS))
                .maxConcurrent((int) in.integer(m, "maxConcurrent", "dispatch", d.maxConcurrent(), 1,
                        DispatchConfig.MAX_CONCURRENT))
                .build();
    }

    /** The section as the effective config prints it (the key masked). */
    static Map<String, Object> effective(DispatchConfig d) {
        Map<String, Object> model = new java.util.LinkedHashMap<>();
        model.put("baseUrl", d.baseUrl());
        model.put("name", d.model());
        model.put("apiKey", d.apiKey().isEmpty() ? "" : "***");
        model.put("timeoutMs", d.timeoutMs());
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("enabled", d.enabled());
        m.put("useSummary", d.useSummary());
        m.put("maxGroups", d.maxGroups());
        m.put("model", model);
        m.put("cacheTtlMs", d.cacheTtlMs());
        m.put("maxConcurrent", d.maxConcurrent());
        return m;
    }
}
