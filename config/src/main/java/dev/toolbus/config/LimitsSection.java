package dev.toolbus.config;

import dev.toolbus.executor.limits.LimitRule;
import dev.toolbus.executor.limits.Limits;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Reads the {@code limits} section of {@code toolbus.yaml} into {@link Limits}, leniently: a bad value
 * falls back as docs/configuration.md says, and every fallback is kept in {@link Limits#warnings()},
 * which {@link LiveConfig} reads to keep the last good limits on a reload:
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
 * Fallbacks: a non-number drops that limit; a number below the minimum takes the minimum (the strictest
 * value), above the maximum the maximum; an unknown {@code per} means one bucket for the rule (stricter
 * than per user); a match list that is not a list matches everything (fail closed); a rule left without
 * a limit is ignored; a missing, bad or repeated name is replaced by a generated one.
 */
public final class LimitsSection {

    static final String KEY = "limits";

    static final Set<String> KEYS = Set.of("store", "redisUrl", "maxKeys", "rules");
    static final Set<String> RULE_KEYS = Set.of("name", "tools", "plugins", "sources", "users", "streams",
            "agents", "rate", "periodMs", "burst", "per", "shared", "concurrency", "maxCallsPerTool",
            "maxCallsPerTurn");

    private LimitsSection() {
    }

    /**
     * Limits from the {@code limits} mapping (plain values: maps, lists, strings, numbers, booleans). Keys:
     * {@code store}, {@code redisUrl}, {@code maxKeys}, {@code rules} (each rule: {@code name}, the match
     * lists {@code tools}, {@code plugins}, {@code sources}, {@code users}, {@code streams}, {@code agents},
     * and {@code rate}, {@code periodMs}, {@code burst}, {@code per}, {@code shared}, {@code concurrency},
     * {@code maxCallsPerTool}, {@code maxCallsPerTurn}). Warnings name the key's path below {@code limits}
     * and are kept in the result's {@link Limits#warnings()}.
     */
    @SuppressWarnings("unchecked")
    public static Limits read(Map<String, ?> raw) {
        Objects.requireNonNull(raw, "raw");
        List<String> warnings = new ArrayList<>();
        for (String k : raw.keySet()) {
            if (!KEYS.contains(k)) {
                warnings.add(k + ": is not a known setting; ignored");
            }
        }
        String store = "memory";
        if (raw.containsKey("store")) {
            Object value = raw.get("store");
            String s = value == null ? "" : String.valueOf(value).strip().toLowerCase(Locale.ROOT);
            if (s.equals("in-memory")) {
                s = "memory";
            }
            if (!Limits.STORES.contains(s)) {
                warnings.add("store: '" + value + "' is not memory or redis; using memory (each instance counts alone)");
                s = "memory";
            }
            store = s;
        }
        String redisUrl = "";
        if (raw.containsKey("redisUrl")) {
            Object u = raw.get("redisUrl");
            if (u instanceof String s) {
                redisUrl = s;
            } else {
                warnings.add("redisUrl: " + describe(u) + " is not a string; using the bus's URL");
            }
        }
        int maxKeys = Limits.DEFAULT_MAX_KEYS;
        if (raw.containsKey("maxKeys")) {
            Object value = raw.get("maxKeys");
            Long n = LooseNumbers.integer(value);
            if (n == null) {
                warnings.add("maxKeys: '" + value + "' is not an integer; using " + Limits.DEFAULT_MAX_KEYS);
            } else if (n < 1) {
                warnings.add("maxKeys: " + n + " is below 1; using 1");
                maxKeys = 1;
            } else if (n > Limits.MAX_MAX_KEYS) {
                warnings.add("maxKeys: " + n + " is above " + Limits.MAX_MAX_KEYS + "; using " + Limits.MAX_MAX_KEYS);
                maxKeys = Limits.MAX_MAX_KEYS;
            } else {
                maxKeys = n.intValue();
            }
        }
        List<Object> entries = new ArrayList<>();
        Object rules = raw.get("rules");
        if (rules == null) {
            if (raw.containsKey("rules")) {
                warnings.add("rules: is empty; no rules");
            }
        } else if (!(rules instanceof List<?> list)) {
            warnings.add("rules: must be a list, got " + describe(rules) + "; no rules");
        } else {
            for (int i = 0; i < list.size(); i++) {
                Object e = list.get(i);
                String path = "rules[" + i + "]";
                entries.add(e instanceof Map ? LooseRule.read(path, (Map<String, ?>) e)
                        : path + ": must be a mapping, got " + describe(e) + "; the rule is ignored");
            }
        }
        Limits.Builder b = Limits.builder().store(store).redisUrl(redisUrl).maxKeys(maxKeys);
        boolean shared = store.equals("redis");
        Set<String> names = new HashSet<>();
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i) instanceof String skipped) {
                warnings.add(skipped);
                continue;
            }
            LooseRule r = (LooseRule) entries.get(i);
            String label = r.name.isEmpty() ? r.path : r.path + " (" + r.name + ")";
            String name = r.name;
            if (!name.isEmpty() && !LimitRule.NAME.matcher(name).matches()) {
                r.warn("name: '" + name + "' must be 1-64 letters, digits, _ . : or -; using rule-" + (i + 1));
                name = "";
            }
            if (name.isEmpty()) {
                name = "rule-" + (i + 1);
            }
            if (!names.add(name)) {
                String renamed = name + "-" + (i + 1);
                r.warn("name: '" + name + "' is used by an earlier rule; using '" + renamed + "'");
                name = renamed;
                names.add(name);
            }
            LimitRule rule = r.build(name, shared);
            for (String w : r.warnings) {
                warnings.add(label + ": " + w);
            }
            if (rule != null) {
                b.rule(rule);
            }
        }
        warnings.forEach(b::warn);
        return b.build();
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
        Limits l = read(in.relaxed ? relaxed(in, raw) : raw);
        for (String w : l.warnings()) {
            in.warnings.add(KEY + "." + w);
        }
        return l;
    }

    /** The section as {@code effectiveYaml} prints it (a password in the URL masked). */
    static Map<String, Object> effective(Limits l) {
        Map<String, Object> m = toMap(l);
        m.put("redisUrl", EffectiveYaml.maskUrl(l.redisUrl()));
        return m;
    }

    /** The limits as the section's plain values: {@link #read(Map)} gives them back. */
    public static Map<String, Object> toMap(Limits l) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("store", l.store());
        m.put("redisUrl", l.redisUrl());
        m.put("maxKeys", l.maxKeys());
        List<Object> out = new ArrayList<>();
        for (LimitRule r : l.rules()) {
            Map<String, Object> rm = new LinkedHashMap<>();
            rm.put("name", r.name());
            putList(rm, "tools", r.tools());
            putList(rm, "plugins", r.plugins());
            putList(rm, "sources", r.sources());
            putList(rm, "users", r.users());
            putList(rm, "streams", r.streams());
            putList(rm, "agents", r.agents());
            if (r.hasRate()) {
                rm.put("rate", r.rate());
                rm.put("periodMs", r.periodMs());
                rm.put("burst", r.burst());
                rm.put("shared", r.shared());
            }
            if (r.per() != LimitRule.Per.NONE) {
                rm.put("per", r.per().wireName());
            }
            if (r.concurrency() > 0) {
                rm.put("concurrency", r.concurrency());
            }
            if (r.maxCallsPerTool() > 0) {
                rm.put("maxCallsPerTool", r.maxCallsPerTool());
            }
            if (r.maxCallsPerTurn() > 0) {
                rm.put("maxCallsPerTurn", r.maxCallsPerTurn());
            }
            out.add(rm);
        }
        m.put("rules", out);
        return m;
    }

    private static void putList(Map<String, Object> m, String key, List<String> v) {
        if (!v.isEmpty()) {
            m.put(key, v);
        }
    }

    static String describe(Object v) {
        if (v == null) {
            return "nothing";
        }
        if (v instanceof Map) {
            return "a mapping";
        }
        if (v instanceof List) {
            return "a list";
        }
        return v instanceof String s ? "'" + s + "'" : String.valueOf(v);
    }

    /** One rule's loose values and the warnings of reading them, until its name is settled. */
    private static final class LooseRule {
        final String path;
        final String name;
        final List<String> warnings = new ArrayList<>();
        List<String> tools = List.of();
        List<String> plugins = List.of();
        List<String> sources = List.of();
        List<String> users = List.of();
        List<String> streams = List.of();
        List<String> agents = List.of();
        int rate;
        long periodMs = LimitRule.DEFAULT_PERIOD_MS;
        Integer burst;
        LimitRule.Per per = LimitRule.Per.NONE;
        Boolean shared;
        int concurrency;
        int maxCallsPerTool;
        int maxCallsPerTurn;

        private LooseRule(String path, String name) {
            this.path = path;
            this.name = name;
        }

        void warn(String message) {
            warnings.add(message);
        }

        static LooseRule read(String path, Map<String, ?> m) {
            LooseRule r = new LooseRule(path, m.get("name") instanceof String s ? s.strip() : "");
            if (m.containsKey("name") && !(m.get("name") instanceof String)) {
                r.warn("name: " + describe(m.get("name")) + " is not a string; the rule gets a generated name");
            }
            for (String k : m.keySet()) {
                if (!RULE_KEYS.contains(k)) {
                    r.warn(k + ": is not a known setting; ignored");
                }
            }
            r.tools = r.globs(m, "tools");
            r.plugins = r.globs(m, "plugins");
            r.sources = r.globs(m, "sources");
            r.users = r.globs(m, "users");
            r.streams = r.globs(m, "streams");
            r.agents = r.globs(m, "agents");
            if (m.containsKey("rate")) {
                Long n = LooseNumbers.integer(m.get("rate"));
                r.rate = n == null ? r.dropped("rate", m.get("rate")) : (int) r.clamp("rate", n, 1, LimitRule.MAX_RATE);
            }
            if (m.containsKey("periodMs")) {
                Object v = m.get("periodMs");
                Long n = LooseNumbers.integer(v);
                if (n == null) {
                    r.warn("periodMs '" + v + "' is not an integer; using " + LimitRule.DEFAULT_PERIOD_MS);
                    r.periodMs = LimitRule.DEFAULT_PERIOD_MS;
                } else {
                    r.periodMs = r.clamp("periodMs", n, 1, LimitRule.MAX_PERIOD_MS);
                }
            }
            if (m.containsKey("burst")) {
                Object v = m.get("burst");
                Long n = LooseNumbers.integer(v);
                if (n == null) {
                    r.warn("burst '" + v + "' is not an integer; using the rate");
                    r.burst = null;
                } else {
                    r.burst = (int) r.clamp("burst", n, 1, LimitRule.MAX_RATE);
                }
            }
            if (m.containsKey("per")) {
                Object v = m.get("per");
                String s = v == null ? "" : String.valueOf(v).strip().toLowerCase(Locale.ROOT);
                r.per = switch (s) {
                    case "user" -> LimitRule.Per.USER;
                    case "stream" -> LimitRule.Per.STREAM;
                    case "agent" -> LimitRule.Per.AGENT;
                    case "none", "" -> LimitRule.Per.NONE;
                    default -> {
                        r.warn("per '" + v + "' is not user, stream or agent; using one bucket for the rule");
                        yield LimitRule.Per.NONE;
                    }
                };
            }
            if (m.containsKey("shared")) {
                Object v = m.get("shared");
                if (v instanceof Boolean b) {
                    r.shared = b;
                } else if (v instanceof String s && (s.strip().equalsIgnoreCase("true")
                        || s.strip().equalsIgnoreCase("false"))) {
                    r.shared = s.strip().equalsIgnoreCase("true");
                } else {
                    r.warn("shared '" + v + "' is not true or false; using false");
                    r.shared = false;
                }
            }
            if (m.containsKey("concurrency")) {
                Long n = LooseNumbers.integer(m.get("concurrency"));
                r.concurrency = n == null ? r.dropped("concurrency", m.get("concurrency"))
                        : (int) r.clamp("concurrency", n, 1, LimitRule.MAX_CONCURRENCY);
            }
            if (m.containsKey("maxCallsPerTool")) {
                Long n = LooseNumbers.integer(m.get("maxCallsPerTool"));
                r.maxCallsPerTool = n == null ? r.dropped("maxCallsPerTool", m.get("maxCallsPerTool"))
                        : (int) r.clamp("maxCallsPerTool", n, 1, LimitRule.MAX_PER_TURN);
            }
            if (m.containsKey("maxCallsPerTurn")) {
                Long n = LooseNumbers.integer(m.get("maxCallsPerTurn"));
                r.maxCallsPerTurn = n == null ? r.dropped("maxCallsPerTurn", m.get("maxCallsPerTurn"))
                        : (int) r.clamp("maxCallsPerTurn", n, 1, LimitRule.MAX_PER_TURN);
            }
            return r;
        }

        /** The rule under its settled name, or {@code null} (warned) when it has no limit left. */
        LimitRule build(String finalName, boolean defaultShared) {
            if (rate == 0 && burst != null) {
                warn("burst without a rate has no effect");
            }
            if (rate == 0 && concurrency == 0 && maxCallsPerTool == 0 && maxCallsPerTurn == 0) {
                warn("has no limit (rate, concurrency, maxCallsPerTool or maxCallsPerTurn); the rule is ignored");
                return null;
            }
            LimitRule.Builder b = LimitRule.builder(finalName).tools(tools).plugins(plugins).sources(sources)
                    .users(users).streams(streams).agents(agents).per(per)
                    .shared(shared == null ? defaultShared : shared);
            if (rate > 0) {
                b.rate(rate).periodMs(periodMs).burst(burst == null ? rate : burst);
            }
            if (concurrency > 0) {
                b.concurrency(concurrency);
            }
            if (maxCallsPerTool > 0) {
                b.maxCallsPerTool(maxCallsPerTool);
            }
            if (maxCallsPerTurn > 0) {
                b.maxCallsPerTurn(maxCallsPerTurn);
            }
            return b.build();
        }

        private int dropped(String key, Object value) {
            warn(key + " '" + value + "' is not an integer; that limit is dropped");
            return 0;
        }

        private long clamp(String key, long n, long min, long max) {
            if (n < min) {
                warn(key + " " + n + " is below " + min + "; using " + min);
                return min;
            }
            if (n > max) {
                warn(key + " " + n + " is above " + max + "; using " + max);
                return max;
            }
            return n;
        }

        private List<String> globs(Map<String, ?> m, String key) {
            if (!m.containsKey(key)) {
                return List.of();
            }
            Object v = m.get(key);
            List<String> raw = new ArrayList<>();
            if (v instanceof String || v instanceof Number || v instanceof Boolean) {
                raw.add(String.valueOf(v));
            } else if (!(v instanceof List<?> l)) {
                // matching nothing would silently drop the limit; matching everything is the safe side
                warn(key + ": must be a list, got " + describe(v) + "; this rule matches "
                        + "every " + key.substring(0, key.length() - 1) + " (fail closed)");
                return List.of();
            } else {
                for (int i = 0; i < l.size(); i++) {
                    Object e = l.get(i);
                    if (e instanceof String || e instanceof Number || e instanceof Boolean) {
                        raw.add(String.valueOf(e));
                    } else {
                        warn(key + "[" + i + "]: " + describe(e) + " is not a string; skipped");
                    }
                }
            }
            List<String> out = new ArrayList<>();
            for (String g : raw) {
                if (g != null && !g.isBlank()) {
                    out.add(g.strip());
                }
            }
            return out;
        }
    }

    private static final java.util.Set<String> RULE_LISTS = java.util.Set.of("tools", "plugins", "sources", "users",
            "streams", "agents");

    /** Relaxed keys renamed to these (unknown ones are left for {@link #read(Map)} to warn about), comma lists split. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> relaxed(ConfigLoader.Reader in, Map<String, Object> raw) {
        Map<String, Object> out = new LinkedHashMap<>();
        raw.forEach((k, v) -> out.put(ConfigLoader.Reader.canonical(k, KEYS), v));
        if (out.get("rules") instanceof List<?> rules) {
            List<Object> copy = new java.util.ArrayList<>(rules.size());
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
}
