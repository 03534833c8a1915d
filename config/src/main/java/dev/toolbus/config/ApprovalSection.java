package dev.toolbus.config;

import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.protocol.Risk;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Reads the {@code approval} section of {@code toolbus.yaml} (and the approval flags of the CLI) into
 * {@link ApprovalSettings}, leniently:
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
 * on a reload (fail closed). The settings' own builder is strict; this is where loose values become
 * valid ones.
 */
public final class ApprovalSection {

    static final String KEY = "approval";
    private static final Set<String> KEYS = Set.of("mode", "timeoutMs", "low", "medium", "high", "bypass",
            "sessionGrants", "sessionMaxRisk", "agents");

    private ApprovalSection() {
    }

    /**
     * Loose values over {@code base}: {@code mode} (off, auto, confirm_all or ask; {@code false} reads as
     * off) and {@code timeoutMs} (a number of ms, 1000..86400000), as flags give them. Each fallback is
     * added to {@code warnings} and recorded in the result's {@link ApprovalSettings#warnings()}.
     */
    public static ApprovalSettings read(ApprovalSettings base, Map<String, ?> raw, List<String> warnings) {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(raw, "raw");
        Objects.requireNonNull(warnings, "warnings");
        ApprovalSettings.Builder b = base.toBuilder();
        List<String> own = new ArrayList<>();
        raw.forEach((k, v) -> {
            switch (k) {
                case "mode" -> b.mode(mode(Boolean.FALSE.equals(v) ? "off" : v, own));
                case "timeoutMs" -> b.timeoutMs(timeoutMs(v, own));
                default -> own.add(k + " is not a known approval setting; ignored");
            }
        });
        own.forEach(b::warn);
        warnings.addAll(own);
        return b.build();
    }

    @SuppressWarnings("unchecked")
    static ApprovalSettings read(ConfigLoader.Reader r, Map<String, Object> root, List<String> dangerousTools) {
        int before = r.warnings.size();
        Map<String, Object> m = r.section(root, KEY, "", KEYS);
        ApprovalSettings.Builder b = ApprovalSettings.builder();
        List<String> loose = new ArrayList<>();
        if (m.containsKey("mode")) {
            Object v = m.get("mode");
            b.mode(mode(Boolean.FALSE.equals(v) ? "off" : v, loose));
        }
        if (m.containsKey("timeoutMs")) {
            b.timeoutMs(timeoutMs(m.get("timeoutMs"), loose));
        }
        b.low(r.strings(m, "low", KEY, List.of()))
                .medium(r.strings(m, "medium", KEY, List.of()))
                .high(r.strings(m, "high", KEY, List.of()))
                .bypass(r.strings(m, "bypass", KEY, List.of()))
                .sessionGrants(r.bool(m, "sessionGrants", KEY, true));
        if (m.containsKey("sessionMaxRisk")) {
            b.sessionMaxRisk(sessionMaxRisk(m.get("sessionMaxRisk"), loose));
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
                mode = Boolean.FALSE.equals(mode) ? "off" : mode;
                ApprovalMode parsed = ApprovalMode.parse(mode);
                if (parsed == null) {
                    loose.add("agents." + id + ".mode '" + mode
                            + "' is not off, auto, confirm_all or ask; the agent uses the default mode");
                } else if (!id.isBlank()) {
                    b.agent(id, parsed);
                }
            }
        });
        b.dangerousTools(dangerousTools);
        List<String> own = new ArrayList<>(r.warnings.subList(before, r.warnings.size()));
        for (String w : loose) {
            String prefixed = KEY + "." + w;
            r.warnings.add(prefixed);
            own.add(prefixed);
        }
        own.forEach(b::warn);
        return b.build();
    }

    /** A mode: off, auto, confirm_all or ask; anything else → off (warned). */
    private static ApprovalMode mode(Object value, List<String> warnings) {
        ApprovalMode m = ApprovalMode.parse(value);
        if (m == null) {
            warnings.add("mode '" + value + "' is not off, auto, confirm_all or ask; using off");
            return ApprovalMode.OFF;
        }
        return m;
    }

    /** The answer timeout in ms: below 1000 → 1000; above 24 h → 24 h; not a number → 60000 (warned). */
    private static long timeoutMs(Object value, List<String> warnings) {
        Double d = LooseNumbers.number(value);
        if (d == null) {
            warnings.add("timeoutMs '" + value + "' is not a number; using " + ApprovalSettings.DEFAULT_TIMEOUT_MS);
            return ApprovalSettings.DEFAULT_TIMEOUT_MS;
        }
        if (d < ApprovalSettings.MIN_TIMEOUT_MS) {
            warnings.add("timeoutMs " + d.longValue() + " is below " + ApprovalSettings.MIN_TIMEOUT_MS + "; using "
                    + ApprovalSettings.MIN_TIMEOUT_MS);
            return ApprovalSettings.MIN_TIMEOUT_MS;
        }
        if (d > ApprovalSettings.MAX_TIMEOUT_MS) {
            warnings.add("timeoutMs " + d.longValue() + " is above " + ApprovalSettings.MAX_TIMEOUT_MS + "; using "
                    + ApprovalSettings.MAX_TIMEOUT_MS);
            return ApprovalSettings.MAX_TIMEOUT_MS;
        }
        return d.longValue();
    }

    /** The highest risk a session grant covers: low, medium or high; anything else → medium (warned). */
    private static Risk sessionMaxRisk(Object value, List<String> warnings) {
        Risk r = null;
        if (value instanceof Risk given) {
            r = given;
        } else if (value instanceof String s) {
            try {
                r = Risk.parse(s);
            } catch (IllegalArgumentException e) {
                r = null;
            }
        }
        if (r == null) {
            warnings.add("sessionMaxRisk '" + value + "' is not low, medium or high; using medium");
            return Risk.MEDIUM;
        }
        return r;
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
