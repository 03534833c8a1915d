package dev.toolbus.executor.limits;

import static dev.toolbus.spi.Checks.requireArgument;
import static dev.toolbus.spi.Checks.requireRange;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * The limit rules of an executor ({@code ToolExecutor.Builder.limits}): rate, concurrency and per-turn
 * caps on the calls they match (see {@link LimitRule}). Every rule that matches a call applies; a call
 * refused by any ends {@code RATE_LIMITED} or {@code LIMIT_EXCEEDED}. {@link #NONE} (no rules) costs a
 * call nothing. Immutable; built with a strict builder that throws on a value out of range. The
 * {@code limits} section of {@code toolbus.yaml} is read leniently by {@code toolbus-config}'s
 * {@code LimitsSection}, which records its fallbacks in {@link #warnings()} (a reload with warnings keeps
 * the last good limits).
 *
 * <pre>{@code
 * Limits limits = Limits.builder()
 *         .rule(LimitRule.builder("search-per-user").tools(List.of("web_search")).rate(10).periodMs(60_000)
 *                 .per(LimitRule.Per.USER))
 *         .rule(LimitRule.builder("one-browser").plugins(List.of("browser")).concurrency(1))
 *         .build();
 * ToolExecutor executor = ToolExecutor.builder().limits(limits).build();
 * }</pre>
 */
public final class Limits {

    public static final int DEFAULT_MAX_KEYS = 10_000;
    public static final int MAX_MAX_KEYS = 1_000_000;
    /** The stores: {@code memory} (each instance counts alone) and {@code redis} (shared buckets). */
    public static final List<String> STORES = List.of("memory", "redis");
    /** No rules. */
    public static final Limits NONE = new Builder().build();

    private final List<LimitRule> rules;
    private final String store;
    private final String redisUrl;
    private final int maxKeys;
    private final List<String> warnings;

    private Limits(List<LimitRule> rules, Builder b) {
        this.rules = List.copyOf(rules);
        this.store = b.store;
        this.redisUrl = b.redisUrl;
        this.maxKeys = b.maxKeys;
        this.warnings = List.copyOf(b.warnings);
    }

    /** Starts a builder: no rules, the memory store, 10000 keys. */
    public static Builder builder() {
        return new Builder();
    }

    /** The rules, in order, each named uniquely. */
    public List<LimitRule> rules() {
        return rules;
    }

    /**
     * {@code memory} (each instance counts alone) or {@code redis} (rules default to
     * {@link LimitRule#shared()} and their buckets are shared by every instance).
     */
    public String store() {
        return store;
    }

    /** The Redis of the shared store; empty: the Redis bus's URL. */
    public String redisUrl() {
        return redisUrl;
    }

    /** The most per-key buckets kept in memory (least recently used go first). */
    public int maxKeys() {
        return maxKeys;
    }

    /**
     * The problems a lenient reader found while reading these limits (the config's reader records its
     * fallbacks here). The builder's setters never add one: they throw.
     */
    public List<String> warnings() {
        return warnings;
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

    @Override
    public boolean equals(Object o) {
        return o instanceof Limits l && rules.equals(l.rules) && store.equals(l.store) && redisUrl.equals(l.redisUrl)
                && maxKeys == l.maxKeys && warnings.equals(l.warnings);
    }

    @Override
    public int hashCode() {
        return Objects.hash(rules, store, redisUrl, maxKeys, warnings);
    }

    @Override
    public String toString() {
        return "Limits[rules=" + rules + ", store=" + store + ", redisUrl=" + redisUrl + ", maxKeys=" + maxKeys
                + ", warnings=" + warnings + "]";
    }

    /**
     * Builder of {@link Limits}; every setter throws {@link IllegalArgumentException} on a bad value, and
     * {@link #build()} on two rules of one name.
     */
    public static final class Builder {
        /** Rules in order: built ones, or builders resolved at {@link #build()} (their shared default follows the store). */
        private final List<Object> rules = new ArrayList<>();
        private String store = "memory";
        private String redisUrl = "";
        private int maxKeys = DEFAULT_MAX_KEYS;
        private final List<String> warnings = new ArrayList<>();

        private Builder() {
        }

        /** Adds a rule; unless it says, its bucket is shared when the store is {@code redis}. */
        public Builder rule(LimitRule.Builder rule) {
            rules.add(Objects.requireNonNull(rule, "rule"));
            return this;
        }

        /** Adds a built rule (its {@link LimitRule#shared()} as built). */
        public Builder rule(LimitRule rule) {
            rules.add(Objects.requireNonNull(rule, "rule"));
            return this;
        }

        /** {@code memory} or {@code redis} (case-insensitive; default memory). */
        public Builder store(String value) {
            String s = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
            requireArgument(STORES.contains(s), "store must be memory or redis, got '" + value + "'");
            store = s;
            return this;
        }

        /** The Redis of the shared store ({@code null} or empty: the Redis bus's URL). */
        public Builder redisUrl(String url) {
            redisUrl = url == null ? "" : url.strip();
            return this;
        }

        /** Per-key buckets kept in memory: 1..1000000 (default 10000). */
        public Builder maxKeys(int value) {
            maxKeys = requireRange(value, 1, MAX_MAX_KEYS, "maxKeys");
            return this;
        }

        /**
         * Records a problem a lenient reader found (see {@link Limits#warnings()}): config's reader does;
         * code that builds limits itself has none to record.
         */
        public Builder warn(String message) {
            warnings.add(Objects.requireNonNull(message, "message"));
            return this;
        }

        /**
         * The limits.
         *
         * @throws IllegalArgumentException when two rules share a name, or a rule given as a builder has no
         *     limit
         */
        public Limits build() {
            List<LimitRule> built = new ArrayList<>(rules.size());
            Set<String> names = new HashSet<>();
            for (Object r : rules) {
                LimitRule rule = r instanceof LimitRule.Builder b ? b.build(store.equals("redis")) : (LimitRule) r;
                requireArgument(names.add(rule.name()), "two limit rules are named " + rule.name());
                built.add(rule);
            }
            return new Limits(built, this);
        }
    }
}
