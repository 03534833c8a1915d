package dev.toolbus.executor.limits;

import dev.toolbus.internal.LooseNumbers;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One limit rule: which calls it matches, and the limits it puts on them. A call matches when every
 * non-empty match list has an entry matching it (entries are {@code *} globs, case-insensitive); a rule
 * with no match list matches every call.
 *
 * <p>Limits (any combination; a rule needs at least one):
 * <ul>
 *   <li>a token bucket: {@code rate} calls per {@code periodMs}, holding at most {@code burst} tokens,
 *       one bucket for the rule or one per user, stream or agent ({@link #per()}); a call finding it empty
 *       ends {@code RATE_LIMITED} with {@code retry_after_ms}</li>
 *   <li>{@code concurrency}: at most this many matching calls run at once (one cap for the rule, or one
 *       per user, stream or agent); further calls wait for a permit without holding an executor slot</li>
 *   <li>{@code maxCallsPerTool}: in one turn, calls of one tool beyond this many end
 *       {@code LIMIT_EXCEEDED}; {@code maxCallsPerTurn}: matching calls in one turn beyond this many end
 *       {@code LIMIT_EXCEEDED} (counted in call order, so the first ones run)</li>
 * </ul>
 * Build rules with {@link #builder(String)}; bad values fall back with a warning (see {@link Builder}).
 *
 * @param name the rule's name (meters, messages)
 * @param tools tool name globs
 * @param plugins plugin id globs (a stdio plugin's id, an MCP server's name)
 * @param sources {@code core}, {@code plugin} (Java), {@code stdio}, {@code mcp}, or {@code mcp:<server>} globs
 * @param users user id globs
 * @param streams stream id globs
 * @param agents agent id globs
 * @param rate tokens added per period; 0: no token bucket
 * @param periodMs the refill period
 * @param burst the bucket's size (the most calls at once after a quiet spell)
 * @param per whose bucket and concurrency cap: one for the rule, or one per user, stream or agent
 * @param shared whether the bucket lives in the shared store (all instances), else in memory
 * @param concurrency the most matching calls running at once; 0: no cap
 * @param maxCallsPerTool calls of one tool per turn; 0: no cap
 * @param maxCallsPerTurn matching calls per turn; 0: no cap
 */
public record LimitRule(
        String name,
        List<String> tools,
        List<String> plugins,
        List<String> sources,
        List<String> users,
        List<String> streams,
        List<String> agents,
        int rate,
        long periodMs,
        int burst,
        Per per,
        boolean shared,
        int concurrency,
        int maxCallsPerTool,
        int maxCallsPerTurn) {

    public static final long DEFAULT_PERIOD_MS = 1_000;
    public static final long MAX_PERIOD_MS = 24L * 3600 * 1000;
    public static final int MAX_RATE = 1_000_000;
    public static final int MAX_CONCURRENCY = 10_000;
    public static final int MAX_PER_TURN = 100_000;

    /** Whose bucket or cap a call uses. */
    public enum Per {
        /** One for the whole rule. */
        NONE,
        /** One per {@code context.user_id}. */
        USER,
        /** One per {@code stream_id}. */
        STREAM,
        /** One per {@code context.agent_id}. */
        AGENT;

        /** The config spelling. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public LimitRule {
        Objects.requireNonNull(name, "name");
        tools = List.copyOf(tools);
        plugins = List.copyOf(plugins);
        sources = List.copyOf(sources);
        users = List.copyOf(users);
        streams = List.copyOf(streams);
        agents = List.copyOf(agents);
        Objects.requireNonNull(per, "per");
        if (rate < 0 || rate > MAX_RATE || concurrency < 0 || concurrency > MAX_CONCURRENCY || maxCallsPerTool < 0
                || maxCallsPerTool > MAX_PER_TURN || maxCallsPerTurn < 0 || maxCallsPerTurn > MAX_PER_TURN) {
            throw new IllegalArgumentException("a limit of rule " + name + " is out of range (use the builder)");
        }
        if (rate > 0 && (periodMs < 1 || periodMs > MAX_PERIOD_MS || burst < 1 || burst > MAX_RATE)) {
            throw new IllegalArgumentException("the token bucket of rule " + name + " is out of range (use the builder)");
        }
    }

    /** Whether the rule has a token bucket. */
    public boolean hasRate() {
        return rate > 0;
    }

    /** Whether the rule caps calls per turn. */
    public boolean hasTurnCap() {
        return maxCallsPerTool > 0 || maxCallsPerTurn > 0;
    }

    /** Starts a rule of that name (blank: named by {@link Limits} as {@code rule-<n>}). */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /**
     * Builder with fallbacks: setters take loosely typed values (as read from YAML) and never throw for a
     * bad one; they fall back and record a warning ({@link #warnings()}). Fallbacks: a non-number drops
     * that limit; a number below the minimum takes the minimum (the strictest value), above the maximum
     * the maximum; an unknown {@code per} means one bucket for the rule (stricter than per user).
     */
    public static final class Builder {
        private String name;
        private List<String> tools = List.of();
        private List<String> plugins = List.of();
        private List<String> sources = List.of();
        private List<String> users = List.of();
        private List<String> streams = List.of();
        private List<String> agents = List.of();
        private int rate;
        private long periodMs = DEFAULT_PERIOD_MS;
        private Integer burst;
        private Per per = Per.NONE;
        private Boolean shared;
        private int concurrency;
        private int maxCallsPerTool;
        private int maxCallsPerTurn;
        private final List<String> warnings = new ArrayList<>();

        private Builder(String name) {
            this.name = name == null ? "" : name.strip();
        }

        /** Renames the rule. */
        public Builder name(String name) {
            this.name = name == null ? "" : name.strip();
            return this;
        }

        /** Tool name globs (empty: any tool). */
        public Builder tools(List<String> globs) {
            tools = clean(globs);
            return this;
        }

        /** Plugin id globs: a stdio plugin's id, an MCP server's name. */
        public Builder plugins(List<String> globs) {
            plugins = clean(globs);
            return this;
        }

        /** Source globs: {@code core}, {@code plugin}, {@code stdio}, {@code mcp}, {@code mcp:<server>}. */
        public Builder sources(List<String> globs) {
            sources = clean(globs);
            return this;
        }

        /** {@code context.user_id} globs. */
        public Builder users(List<String> globs) {
            users = clean(globs);
            return this;
        }

        /** {@code stream_id} globs. */
        public Builder streams(List<String> globs) {
            streams = clean(globs);
            return this;
        }

        /** {@code context.agent_id} globs. */
        public Builder agents(List<String> globs) {
            agents = clean(globs);
            return this;
        }

        /** Tokens per period, 1..1000000 (a non-number drops the bucket). */
        public Builder rate(Object value) {
            Long n = LooseNumbers.integer(value);
            rate = n == null ? dropped("rate", value) : (int) clamp("rate", n, 1, MAX_RATE);
            return this;
        }

        /** The refill period in ms, 1..86400000 (default 1000; a non-number → 1000). */
        public Builder periodMs(Object value) {
            Long n = LooseNumbers.integer(value);
            if (n == null) {
                warn("periodMs '" + value + "' is not an integer; using " + DEFAULT_PERIOD_MS);
                periodMs = DEFAULT_PERIOD_MS;
            } else {
                periodMs = clamp("periodMs", n, 1, MAX_PERIOD_MS);
            }
            return this;
        }

        /** The bucket's size, 1..1000000 (default: the rate; a non-number → the rate). */
        public Builder burst(Object value) {
            Long n = LooseNumbers.integer(value);
            if (n == null) {
                warn("burst '" + value + "' is not an integer; using the rate");
                burst = null;
            } else {
                burst = (int) clamp("burst", n, 1, MAX_RATE);
            }
            return this;
        }

        /** {@code user}, {@code stream}, {@code agent} or {@code none} (anything else → none, warned). */
        public Builder per(Object value) {
            String s = value == null ? "" : String.valueOf(value).strip().toLowerCase(Locale.ROOT);
            per = switch (s) {
                case "user" -> Per.USER;
                case "stream" -> Per.STREAM;
                case "agent" -> Per.AGENT;
                case "none", "" -> Per.NONE;
                default -> {
                    warn("per '" + value + "' is not user, stream or agent; using one bucket for the rule");
                    yield Per.NONE;
                }
            };
            return this;
        }

        /** Whose bucket and cap a call uses. */
        public Builder per(Per value) {
            per = Objects.requireNonNull(value, "per");
            return this;
        }

        /** Whether the bucket lives in the shared store (true/false; anything else → false, warned). */
        public Builder shared(Object value) {
            if (value instanceof Boolean b) {
                shared = b;
            } else if (value instanceof String s && (s.strip().equalsIgnoreCase("true")
                    || s.strip().equalsIgnoreCase("false"))) {
                shared = s.strip().equalsIgnoreCase("true");
            } else {
                warn("shared '" + value + "' is not true or false; using false");
                shared = false;
            }
            return this;
        }

        /** The most matching calls at once, 1..10000 (a non-number drops the cap). */
        public Builder concurrency(Object value) {
            Long n = LooseNumbers.integer(value);
            concurrency = n == null ? dropped("concurrency", value) : (int) clamp("concurrency", n, 1, MAX_CONCURRENCY);
            return this;
        }

        /** Calls of one tool per turn, 1..100000 (a non-number drops the cap). */
        public Builder maxCallsPerTool(Object value) {
            Long n = LooseNumbers.integer(value);
            maxCallsPerTool = n == null ? dropped("maxCallsPerTool", value)
                    : (int) clamp("maxCallsPerTool", n, 1, MAX_PER_TURN);
            return this;
        }

        /** Matching calls per turn, 1..100000 (a non-number drops the cap). */
        public Builder maxCallsPerTurn(Object value) {
            Long n = LooseNumbers.integer(value);
            maxCallsPerTurn = n == null ? dropped("maxCallsPerTurn", value)
                    : (int) clamp("maxCallsPerTurn", n, 1, MAX_PER_TURN);
            return this;
        }

        /** Records a warning (prefixed with the rule's name by {@link Limits}). */
        public Builder warn(String message) {
            warnings.add(message);
            return this;
        }

        /** The fallbacks applied so far. */
        public List<String> warnings() {
            return List.copyOf(warnings);
        }

        String currentName() {
            return name;
        }

        /** The rule, or {@code null} (warned) when it has no limit left. */
        public LimitRule build() {
            return build(false);
        }

        /** The rule; {@code defaultShared} applies when {@link #shared} was not given. */
        LimitRule build(boolean defaultShared) {
            if (rate == 0 && burst != null) {
                warn("burst without a rate has no effect");
            }
            if (rate == 0 && concurrency == 0 && maxCallsPerTool == 0 && maxCallsPerTurn == 0) {
                warn("has no limit (rate, concurrency, maxCallsPerTool or maxCallsPerTurn); the rule is ignored");
                return null;
            }
            int b = rate == 0 ? 0 : burst == null ? rate : burst;
            return new LimitRule(name, tools, plugins, sources, users, streams, agents, rate, rate == 0 ? 0 : periodMs,
                    b, per, (shared == null ? defaultShared : shared) && rate > 0, concurrency, maxCallsPerTool, maxCallsPerTurn);
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

        private static List<String> clean(List<String> globs) {
            List<String> out = new ArrayList<>();
            for (String g : globs) {
                if (g != null && !g.isBlank()) {
                    out.add(g.strip());
                }
            }
            return out;
        }

    }
}
