package dev.toolbus.executor.limits;

import static dev.toolbus.spi.Checks.requireArgument;
import static dev.toolbus.spi.Checks.requireRange;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One limit rule: which calls it matches, and the limits it puts on them. A call matches when every
 * non-empty match list has an entry matching it (entries are {@code *} globs, case-insensitive); a rule
 * with no match list matches every call.
 *
 * <p>Limits (any combination; a rule needs at least one):
 * <ul>
 *   <li>a token bucket: {@link #rate()} calls per {@link #periodMs()}, holding at most {@link #burst()}
 *       tokens, one bucket for the rule or one per user, stream or agent ({@link #per()}); a call finding
 *       it empty ends {@code RATE_LIMITED} with {@code retry_after_ms}</li>
 *   <li>{@link #concurrency()}: at most this many matching calls run at once (one cap for the rule, or
 *       one per user, stream or agent); further calls wait for a permit without holding an executor slot</li>
 *   <li>{@link #maxCallsPerTool()}: in one turn, calls of one tool beyond this many end
 *       {@code LIMIT_EXCEEDED}; {@link #maxCallsPerTurn()}: matching calls in one turn beyond this many end
 *       {@code LIMIT_EXCEEDED} (counted in call order, so the first ones run)</li>
 * </ul>
 * Built with a strict builder that throws on a value out of range; the {@code limits} section of
 * {@code toolbus.yaml} is read leniently by {@code toolbus-config}'s {@code LimitsSection}.
 *
 * <pre>{@code
 * LimitRule rule = LimitRule.builder("search-per-user").tools(List.of("web_search"))
 *         .rate(10).periodMs(60_000).per(LimitRule.Per.USER).build();
 * }</pre>
 */
public final class LimitRule {

    public static final long DEFAULT_PERIOD_MS = 1_000;
    public static final long MAX_PERIOD_MS = 24L * 3600 * 1000;
    public static final int MAX_RATE = 1_000_000;
    public static final int MAX_CONCURRENCY = 10_000;
    public static final int MAX_PER_TURN = 100_000;
    /** What a rule's name may hold: 1-64 letters, digits, {@code _ . : -}. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");

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

    private final String name;
    private final List<String> tools;
    private final List<String> plugins;
    private final List<String> sources;
    private final List<String> users;
    private final List<String> streams;
    private final List<String> agents;
    private final int rate;
    private final long periodMs;
    private final int burst;
    private final Per per;
    private final boolean shared;
    private final int concurrency;
    private final int maxCallsPerTool;
    private final int maxCallsPerTurn;

    private LimitRule(Builder b, boolean shared) {
        this.name = b.name;
        this.tools = b.tools;
        this.plugins = b.plugins;
        this.sources = b.sources;
        this.users = b.users;
        this.streams = b.streams;
        this.agents = b.agents;
        this.rate = b.rate;
        this.periodMs = b.rate == 0 ? 0 : b.periodMs;
        this.burst = b.rate == 0 ? 0 : b.burst == 0 ? b.rate : b.burst;
        this.per = b.per;
        this.shared = shared && b.rate > 0;
        this.concurrency = b.concurrency;
        this.maxCallsPerTool = b.maxCallsPerTool;
        this.maxCallsPerTurn = b.maxCallsPerTurn;
    }

    /** Starts a rule of that name: 1-64 letters, digits, {@code _ . : -}. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** A builder initialised from this rule. */
    public Builder toBuilder() {
        Builder b = new Builder(name).tools(tools).plugins(plugins).sources(sources).users(users).streams(streams)
                .agents(agents).per(per).shared(shared);
        if (rate > 0) {
            b.rate(rate).periodMs(periodMs).burst(burst);
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
        return b;
    }

    /** The rule's name (meters, messages). */
    public String name() {
        return name;
    }

    /** Tool name globs. */
    public List<String> tools() {
        return tools;
    }

    /** Plugin id globs (a stdio plugin's id, an MCP server's name). */
    public List<String> plugins() {
        return plugins;
    }

    /** {@code core}, {@code plugin} (Java), {@code stdio}, {@code mcp}, or {@code mcp:<server>} globs. */
    public List<String> sources() {
        return sources;
    }

    /** User id globs. */
    public List<String> users() {
        return users;
    }

    /** Stream id globs. */
    public List<String> streams() {
        return streams;
    }

    /** Agent id globs. */
    public List<String> agents() {
        return agents;
    }

    /** Tokens added per period; 0: no token bucket. */
    public int rate() {
        return rate;
    }

    /** The refill period in ms (0 without a bucket). */
    public long periodMs() {
        return periodMs;
    }

    /** The bucket's size: the most calls at once after a quiet spell (0 without a bucket). */
    public int burst() {
        return burst;
    }

    /** Whose bucket and concurrency cap: one for the rule, or one per user, stream or agent. */
    public Per per() {
        return per;
    }

    /** Whether the bucket lives in the shared store (all instances), else in memory. */
    public boolean shared() {
        return shared;
    }

    /** The most matching calls running at once; 0: no cap. */
    public int concurrency() {
        return concurrency;
    }

    /** Calls of one tool per turn; 0: no cap. */
    public int maxCallsPerTool() {
        return maxCallsPerTool;
    }

    /** Matching calls per turn; 0: no cap. */
    public int maxCallsPerTurn() {
        return maxCallsPerTurn;
    }

    /** Whether the rule has a token bucket. */
    public boolean hasRate() {
        return rate > 0;
    }

    /** Whether the rule caps calls per turn. */
    public boolean hasTurnCap() {
        return maxCallsPerTool > 0 || maxCallsPerTurn > 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LimitRule r && name.equals(r.name) && tools.equals(r.tools) && plugins.equals(r.plugins)
                && sources.equals(r.sources) && users.equals(r.users) && streams.equals(r.streams)
                && agents.equals(r.agents) && rate == r.rate && periodMs == r.periodMs && burst == r.burst
                && per == r.per && shared == r.shared && concurrency == r.concurrency
                && maxCallsPerTool == r.maxCallsPerTool && maxCallsPerTurn == r.maxCallsPerTurn;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, tools, plugins, sources, users, streams, agents, rate, periodMs, burst, per, shared,
                concurrency, maxCallsPerTool, maxCallsPerTurn);
    }

    @Override
    public String toString() {
        return "LimitRule[name=" + name + ", tools=" + tools + ", plugins=" + plugins + ", sources=" + sources
                + ", users=" + users + ", streams=" + streams + ", agents=" + agents + ", rate=" + rate + ", periodMs="
                + periodMs + ", burst=" + burst + ", per=" + per + ", shared=" + shared + ", concurrency=" + concurrency
                + ", maxCallsPerTool=" + maxCallsPerTool + ", maxCallsPerTurn=" + maxCallsPerTurn + "]";
    }

    /**
     * Builder of {@link LimitRule}; every setter throws {@link IllegalArgumentException} on a value out of
     * range, naming the setting and the range.
     */
    public static final class Builder {
        private final String name;
        private List<String> tools = List.of();
        private List<String> plugins = List.of();
        private List<String> sources = List.of();
        private List<String> users = List.of();
        private List<String> streams = List.of();
        private List<String> agents = List.of();
        private int rate;
        private long periodMs = DEFAULT_PERIOD_MS;
        private int burst;
        private Per per = Per.NONE;
        private Boolean shared;
        private int concurrency;
        private int maxCallsPerTool;
        private int maxCallsPerTurn;

        private Builder(String name) {
            requireArgument(name != null && NAME.matcher(name).matches(),
                    "a limit rule's name must be 1-64 letters, digits, _ . : or -, got '" + name + "'");
            this.name = name;
        }

        /** Tool name globs (empty: any tool). */
        public Builder tools(List<String> globs) {
            tools = globs(globs, "tools");
            return this;
        }

        /** Plugin id globs: a stdio plugin's id, an MCP server's name. */
        public Builder plugins(List<String> globs) {
            plugins = globs(globs, "plugins");
            return this;
        }

        /** Source globs: {@code core}, {@code plugin}, {@code stdio}, {@code mcp}, {@code mcp:<server>}. */
        public Builder sources(List<String> globs) {
            sources = globs(globs, "sources");
            return this;
        }

        /** {@code context.user_id} globs. */
        public Builder users(List<String> globs) {
            users = globs(globs, "users");
            return this;
        }

        /** {@code stream_id} globs. */
        public Builder streams(List<String> globs) {
            streams = globs(globs, "streams");
            return this;
        }

        /** {@code context.agent_id} globs. */
        public Builder agents(List<String> globs) {
            agents = globs(globs, "agents");
            return this;
        }

        /** Tokens per period: 1..1000000 (gives the rule a token bucket). */
        public Builder rate(int value) {
            rate = requireRange(value, 1, MAX_RATE, "rate");
            return this;
        }

        /** The refill period in ms: 1..86400000 (default 1000). */
        public Builder periodMs(long value) {
            periodMs = requireRange(value, 1, MAX_PERIOD_MS, "periodMs");
            return this;
        }

        /** The bucket's size: 1..1000000 (default: the rate). */
        public Builder burst(int value) {
            burst = requireRange(value, 1, MAX_RATE, "burst");
            return this;
        }

        /** Whose bucket and cap a call uses (default one for the rule). */
        public Builder per(Per value) {
            per = Objects.requireNonNull(value, "per");
            return this;
        }

        /**
         * Whether the bucket lives in the shared store; unset, it does when the {@link Limits} it joins
         * uses the {@code redis} store.
         */
        public Builder shared(boolean value) {
            shared = value;
            return this;
        }

        /** The most matching calls at once: 1..10000. */
        public Builder concurrency(int value) {
            concurrency = requireRange(value, 1, MAX_CONCURRENCY, "concurrency");
            return this;
        }

        /** Calls of one tool per turn: 1..100000. */
        public Builder maxCallsPerTool(int value) {
            maxCallsPerTool = requireRange(value, 1, MAX_PER_TURN, "maxCallsPerTool");
            return this;
        }

        /** Matching calls per turn: 1..100000. */
        public Builder maxCallsPerTurn(int value) {
            maxCallsPerTurn = requireRange(value, 1, MAX_PER_TURN, "maxCallsPerTurn");
            return this;
        }

        /** The name this builder was started with. */
        public String name() {
            return name;
        }

        /**
         * The rule, its bucket in memory unless {@link #shared(boolean)} said otherwise.
         *
         * @throws IllegalArgumentException when it has no limit, or a burst without a rate
         */
        public LimitRule build() {
            return build(false);
        }

        /** The rule; {@code defaultShared} applies when {@link #shared(boolean)} was not given. */
        LimitRule build(boolean defaultShared) {
            requireArgument(rate > 0 || burst == 0, "rule " + name + ": burst without a rate has no effect");
            requireArgument(rate > 0 || concurrency > 0 || maxCallsPerTool > 0 || maxCallsPerTurn > 0,
                    "rule " + name + " has no limit (rate, concurrency, maxCallsPerTool or maxCallsPerTurn)");
            return new LimitRule(this, shared == null ? defaultShared : shared);
        }

        private static List<String> globs(List<String> globs, String list) {
            Objects.requireNonNull(globs, list);
            for (String g : globs) {
                requireArgument(g != null && !g.isBlank(), list + " entries must be non-blank globs, got '" + g + "'");
            }
            return globs.stream().map(String::strip).toList();
        }
    }
}
