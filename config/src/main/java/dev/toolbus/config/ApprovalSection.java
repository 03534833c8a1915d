package dev.toolbus.config;

import dev.toolbus.executor.ApprovalSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the {@code approval} section of {@code toolbus.yaml}:
 * <pre>{@code
 * approval:
 *   mode: auto            # off (default) | auto | confirm_all | ask
 *   timeoutMs: 60000
 *   low: [get_*]          # risk lists: tool names, plugin ids, * globs
 *   medium: []
 *   high: [wipe]
 *   bypass: [echo]        # never ask (except in ask mode)
 *   sessionGrants: true
 *   sessionMaxRisk: medium
 *   agents:
 *     admin-bot: {mode: confirm_all}
 * }</pre>
 * Every bad value falls back with a warning; all of the section's warnings are also kept in
 * {@link ApprovalSettings#warnings()}, which {@link LiveConfig} reads to keep the last good section
 * on a reload (fail closed).
 */
final class ApprovalSection {

    static final String KEY = "approval";
    private static final Set<String> KEYS = Set.of("mode", "timeoutMs", "low", "medium", "high", "bypass",
            "sessionGrants", "sessionMaxRisk", "agents");

    private ApprovalSection() {
    }

    @SuppressWarnings("unchecked")
    static ApprovalSettings read(ConfigLoader.Reader r, Map<String, Object> root, List<String> dangerousTools) {
        int before = r.warnings.size();
        Map<String, Object> m = r.section(root, KEY, "", KEYS);
        ApprovalSettings.Builder b = ApprovalSettings.builder();
        List<String> own = new ArrayList<>();
        if (m.containsKey("mode")) {
            Object v = m.get("mode");
            b.mode(Boolean.FALSE.equals(v) ? "off" : v);
        }
        if (m.containsKey("timeoutMs")) {
            b.timeoutMs(m.get("timeoutMs"));
        }
        b.low(r.strings(m, "low", KEY, List.of()))
                .medium(r.strings(m, "medium", KEY, List.of()))
                .high(r.strings(m, "high", KEY, List.of()))
                .bypass(r.strings(m, "bypass", KEY, List.of()))
                .sessionGrants(r.bool(m, "sessionGrants", KEY, true));
        if (m.containsKey("sessionMaxRisk")) {
            b.sessionMaxRisk(m.get("sessionMaxRisk"));
        }
        Map<String, Object> agents = r.section(m, "agents", KEY, null);
        agents.forEach((id, v) -> {
            String p = KEY + ".agents." + id;
            if (!(v instanceof Map)) {
                r.warn(p, (v == null ? "is empty" : "must be a mapping, got " + ConfigLoader.Reader.describe(v))
                        + "; the agent uses the default mode");
                return;
            }
            Map<String, Object> am = r.keys((Map<String, Object>) v, p, Set.of("mode"));
            if (am.containsKey("mode")) {
                Object mode = am.get("mode");
                b.agent(id, Boolean.FALSE.equals(mode) ? "off" : mode);
            }
        });
        b.dangerousTools(dangerousTools);
        own.addAll(r.warnings.subList(before, r.warnings.size()));
        ApprovalSettings built = b.build();
        for (String w : built.warnings()) {
            String prefixed = KEY + "." + w;
            r.warnings.add(prefixed);
            own.add(prefixed);
        }
        ApprovalSettings.Builder out = built.toBuilder();
        own.forEach(out::warn);
        return out.build();
    }

    /** The section as {@code effectiveYaml} prints it. */
    static Map<String, Object> effective(ApprovalSettings a) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("mode", a.mode().wireName());
        m.put("timeoutMs", a.timeout().toMillis());
        m.put("low", a.low());
        m.put("medium", a.medium());
        m.put("high", a.high());
        m.put("bypass", a.bypass());
        m.put("sessionGrants", a.sessionGrants());
        m.put("sessionMaxRisk", a.sessionMaxRisk().wireName());
        Map<String, Object> agents = new java.util.TreeMap<>();
        a.agents().forEach((id, mode) -> agents.put(id, Map.of("mode", mode.wireName())));
        m.put("agents", agents);
        return m;
    }
}
