package dev.toolbus.executor.limits;

import dev.toolbus.internal.LooseNumbers;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Immutable limit rules for an executor ({@code ToolExecutor.Builder.limits}): rate, concurrency and
 * per-turn caps on the calls they match (see {@link LimitRule}). Every rule that matches a call applies;
 * a call refused by any ends {@code RATE_LIMITED} or {@code LIMIT_EXCEEDED}. {@link #NONE} (no rules)
 * costs a call nothing.
 *
 * <p>Bad values never fail: they fall back as docs/configuration.md says and every fallback is recorded
 * in {@link #warnings()} (a reload with warnings keeps the last good limits).
 *
 * @param rules the rules, in file order, each named uniquely
 * @param store {@code memory} (each instance counts alone) or {@code redis} (rules default to
 *     {@link LimitRule#shared()} and their buckets are shared by every instance)
 * @param redisUrl the Redis of the shared store; empty: the Redis bus's URL
 * @param maxKeys the most per-key buckets kept in memory (least recently used go first)
 * @param warnings the fallbacks applied while building these limits
 */
public record Limits(List<LimitRule> rules, String store, String redisUrl, int maxKeys, List<String> warnings) {

    public static final int DEFAULT_MAX_KEYS = 10_000;
    public static final int MAX_MAX_KEYS = 1_000_000;
    public static final List<String> STORES = List.of("memory", "redis");
    /** No rules. */
    public static final Limits NONE = new Limits(List.of(), "memory", "", DEFAULT_MAX_KEYS, List.of());

    private static final Set<String> KEYS = Set.of("store", "redisUrl", "maxKeys", "rules");
    private static final Set<String> RULE_KEYS = Set.of("name", "tools", "plugins", "sources", "users", "streams",
            "agents", "rate", "periodMs", "burst", "per", "shared", "concurrency", "maxCallsPerTool",
            "maxCallsPerTurn");

    public Limits {
        rules = List.copyOf(rules);
        Objects.requireNonNull(store, "store");
        redisUrl = redisUrl == null ? "" : redisUrl.strip();
        warnings = List.copyOf(warnings);
        if (!STORES.contains(store)) {
            throw new IllegalArgumentException("store must be memory or redis, got " + store);
        }
        if (maxKeys < 1 || maxKeys > MAX_MAX_KEYS) {
            throw new IllegalArgumentException("maxKeys must be 1.." + MAX_MAX_KEYS + ", got " + maxKeys);
        }
        Set<String> names = new HashSet<>();
        for (LimitRule r : rules) {
            if (!names.add(r.name())) {
                throw new IllegalArgumentException("two rules are named " + r.name());
            }
        }
    }

    /** Whether there is no rule. */
    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /** Whether any rule's bucket lives in the shared store. */
    public boolean anyShared() {
        for (LimitRule r : rules) {
            if (r.shared()) {
                return true;
            }
        }
        return false;
    }

    /** Starts a builder. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Reads the {@code limits} mapping of {@code toolbus.yaml} (plain values: maps, lists, strings,
     * numbers, booleans). Keys: {@code store}, {@code redisUrl}, {@code maxKeys}, {@code rules} (each rule:
     * {@code name}, the match lists {@code tools}, {@code plugins}, {@code sources}, {@code users},
     * {@code streams}, {@code agents}, and {@code rate}, {@code periodMs}, {@code burst}, {@code per},
     * {@code shared}, {@code concurrency}, {@code maxCallsPerTool}, {@code maxCallsPerTurn}). Warnings
     * name the key's path below {@code limits}.
     */
    @SuppressWarnings("unchecked")
    public static Limits fromMap(Map<String, ?> raw) {
        Builder b = builder();
        for (String k : raw.keySet()) {
            if (!KEYS.contains(k)) {
                b.warn(k + ": is not a known setting; ignored");
            }
        }
        if (raw.containsKey("store")) {
            b.store(raw.get("store"));
        }
        if (raw.containsKey("redisUrl")) {
            Object u = raw.get("redisUrl");
            if (u instanceof String s) {
                b.redisUrl(s);
            } else {
                b.warn("redisUrl: " + describe(u) + " is not a string; using the bus's URL");
            }
        }
        if (raw.containsKey("maxKeys")) {
            b.maxKeys(raw.get("maxKeys"));
        }
        Object rules = raw.get("rules");
        if (rules == null) {
            if (raw.containsKey("rules")) {
                b.warn("rules: is empty; no rules");
            }
        } else if (!(rules instanceof List<?> list)) {
            b.warn("rules: must be a list, got " + describe(rules) + "; no rules");
        } else {
            for (int i = 0; i < list.size(); i++) {
                Object e = list.get(i);
                String path = "rules[" + i + "]";
                if (!(e instanceof Map)) {
                    b.rules.add(new Entry(path, null, path + ": must be a mapping, got " + describe(e)
                            + "; the rule is ignored"));
                    continue;
                }
                b.ruleFromMap(path, (Map<String, ?>) e);
            }
        }
        return b.build();
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

    /** The limits as {@code effectiveYaml} prints them. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("store", store);
        m.put("redisUrl", redisUrl);
        m.put("maxKeys", maxKeys);
        List<Object> out = new ArrayList<>();
        for (LimitRule r : rules) {
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

    /** A rule entry of a builder, in file order; a skipped entry holds only its warning. */
    private record Entry(String path, LimitRule.Builder rule, String warning) {
    }

    /** Builder of {@link Limits}; bad values fall back with a warning, as {@link LimitRule.Builder} does. */
    public static final class Builder {
        /** Rules in file order, each with its path; a skipped entry holds only its warning. */
        private final List<Entry> rules = new ArrayList<>();
        private String store = "memory";
        private String redisUrl = "";
        private int maxKeys = DEFAULT_MAX_KEYS;
        private final List<String> warnings = new ArrayList<>();

        private Builder() {
        }

        /** Adds a rule (its warnings are kept, prefixed with its name). */
        public Builder rule(LimitRule.Builder rule) {
            rules.add(new Entry("rules[" + rules.size() + "]", Objects.requireNonNull(rule, "rule"), null));
            return this;
        }

        /** Adds a built rule. */
        public Builder rule(LimitRule rule) {
            Objects.requireNonNull(rule, "rule");
            LimitRule.Builder b = LimitRule.builder(rule.name()).tools(rule.tools()).plugins(rule.plugins())
                    .sources(rule.sources()).users(rule.users()).streams(rule.streams()).agents(rule.agents())
                    .per(rule.per());
            if (rule.hasRate()) {
                b.rate(rule.rate()).periodMs(rule.periodMs()).burst(rule.burst());
            }
            if (rule.concurrency() > 0) {
                b.concurrency(rule.concurrency());
            }
            if (rule.maxCallsPerTool() > 0) {
                b.maxCallsPerTool(rule.maxCallsPerTool());
            }
            if (rule.maxCallsPerTurn() > 0) {
                b.maxCallsPerTurn(rule.maxCallsPerTurn());
            }
            b.shared(rule.shared());
            rules.add(new Entry("rules[" + rules.size() + "]", b, null));
            return this;
        }

        /** {@code memory} or {@code redis} (anything else → memory, warned). */
        public Builder store(Object value) {
            String s = value == null ? "" : String.valueOf(value).strip().toLowerCase(Locale.ROOT);
            if (s.equals("in-memory")) {
                s = "memory";
            }
            if (!STORES.contains(s)) {
                warn("store: '" + value + "' is not memory or redis; using memory (each instance counts alone)");
                s = "memory";
            }
            store = s;
            return this;
        }

        public Builder redisUrl(String url) {
            redisUrl = url == null ? "" : url.strip();
            return this;
        }

        /** Per-key buckets kept, 1..1000000 (default 10000). */
        public Builder maxKeys(Object value) {
            Long n = LooseNumbers.integer(value);
            if (n == null) {
                warn("maxKeys: '" + value + "' is not an integer; using " + DEFAULT_MAX_KEYS);
                maxKeys = DEFAULT_MAX_KEYS;
            } else if (n < 1) {
                warn("maxKeys: " + n + " is below 1; using 1");
                maxKeys = 1;
            } else if (n > MAX_MAX_KEYS) {
                warn("maxKeys: " + n + " is above " + MAX_MAX_KEYS + "; using " + MAX_MAX_KEYS);
                maxKeys = MAX_MAX_KEYS;
            } else {
                maxKeys = n.intValue();
            }
            return this;
        }

        public Builder warn(String message) {
            warnings.add(message);
            return this;
        }

        @SuppressWarnings("unchecked")
        void ruleFromMap(String path, Map<String, ?> m) {
            LimitRule.Builder r = LimitRule.builder(m.get("name") instanceof String s ? s : "");
            if (m.containsKey("name") && !(m.get("name") instanceof String)) {
                r.warn("name: " + describe(m.get("name")) + " is not a string; the rule gets a generated name");
            }
            for (String k : m.keySet()) {
                if (!RULE_KEYS.contains(k)) {
                    r.warn(k + ": is not a known setting; ignored");
                }
            }
            r.tools(globs(r, m, "tools")).plugins(globs(r, m, "plugins")).sources(globs(r, m, "sources"))
                    .users(globs(r, m, "users")).streams(globs(r, m, "streams")).agents(globs(r, m, "agents"));
            if (m.containsKey("rate")) {
                r.rate(m.get("rate"));
            }
            if (m.containsKey("periodMs")) {
                r.periodMs(m.get("periodMs"));
            }
            if (m.containsKey("burst")) {
                r.burst(m.get("burst"));
            }
            if (m.containsKey("per")) {
                r.per(m.get("per"));
            }
            if (m.containsKey("shared")) {
                r.shared(m.get("shared"));
            }
            if (m.containsKey("concurrency")) {
                r.concurrency(m.get("concurrency"));
            }
            if (m.containsKey("maxCallsPerTool")) {
                r.maxCallsPerTool(m.get("maxCallsPerTool"));
            }
            if (m.containsKey("maxCallsPerTurn")) {
                r.maxCallsPerTurn(m.get("maxCallsPerTurn"));
            }
            rules.add(new Entry(path, r, null));
        }

        private static List<String> globs(LimitRule.Builder r, Map<String, ?> m, String key) {
            if (!m.containsKey(key)) {
                return List.of();
            }
            Object v = m.get(key);
            if (v instanceof String || v instanceof Number || v instanceof Boolean) {
                return List.of(String.valueOf(v));
            }
            if (!(v instanceof List<?> l)) {
                // matching nothing would silently drop the limit; matching everything is the safe side
                r.warn(key + ": must be a list, got " + describe(v) + "; this rule matches "
                        + "every " + key.substring(0, key.length() - 1) + " (fail closed)");
                return List.of();
            }
            List<String> out = new ArrayList<>();
            for (int i = 0; i < l.size(); i++) {
                Object e = l.get(i);
                if (e instanceof String || e instanceof Number || e instanceof Boolean) {
                    out.add(String.valueOf(e));
                } else {
                    r.warn(key + "[" + i + "]: " + describe(e) + " is not a string; skipped");
                }
            }
            return out;
        }

        public Limits build() {
            List<String> all = new ArrayList<>(warnings);
            List<LimitRule> built = new ArrayList<>();
            Set<String> names = new HashSet<>();
            for (int i = 0; i < rules.size(); i++) {
                Entry en = rules.get(i);
                if (en.rule == null) {
                    all.add(en.warning);
                    continue;
                }
                LimitRule.Builder rb = en.rule;
                String label = rb.currentName().isEmpty() ? en.path : en.path + " (" + rb.currentName() + ")";
                String name = rb.currentName();
                if (!name.isEmpty() && !name.matches("[A-Za-z0-9_.:-]{1,64}")) {
                    rb.warn("name: '" + name + "' must be 1-64 letters, digits, _ . : or -; using rule-" + (i + 1));
                    name = "";
                }
                if (name.isEmpty()) {
                    name = "rule-" + (i + 1);
                }
                if (!names.add(name)) {
                    String renamed = name + "-" + (i + 1);
                    rb.warn("name: '" + name + "' is used by an earlier rule; using '" + renamed + "'");
                    name = renamed;
                    names.add(name);
                }
                rb.name(name);
                LimitRule r = rb.build(store.equals("redis"));
                for (String w : rb.warnings()) {
                    all.add(label + ": " + w);
                }
                if (r != null) {
                    built.add(r);
                }
            }
            return new Limits(built, store, redisUrl, maxKeys, all);
        }

    }
}
