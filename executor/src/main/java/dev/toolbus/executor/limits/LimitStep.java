package dev.toolbus.executor.limits;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.ErrorInfo;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.spi.RateLimitStore;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.text.Texts;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The limit step: matches a call against the {@link Limits} in force and hands back its
 * {@link Admission} (per-turn caps, token buckets, concurrency permits). With no rule, or none
 * matching, it answers {@link Admission#NONE} and allocates nothing. The rules are compiled once
 * per {@link Limits} instance (a reload hands a new one).
 *
 * <p>Not API: the one public entry of this package's machinery, which the executor makes when it is
 * built with {@code ToolExecutor.Builder.limits}; embedders use that builder method. It may change
 * without notice.
 */
public final class LimitStep {

    /** How long a shared store may take to answer before the call is refused (fail closed). */
    public static final Duration STORE_TIMEOUT = Duration.ofSeconds(2);

    private final Supplier<Limits> limits;
    private final ToolRegistry registry;
    private final RateLimitStore memory;
    private final RateLimitStore shared;
    final ConcurrencyCaps caps = new ConcurrencyCaps();
    final LimitMetrics metrics;
    final Texts texts;
    final Scheduler timer;
    final int maxWaiting;
    private volatile Compiled compiled = new Compiled(Limits.NONE, new Rule[0]);

    private LimitStep(Supplier<Limits> limits, RateLimitStore shared, ToolRegistry registry, LongSupplier nanoClock,
                      Scheduler timer, MeterRegistry meters, DescriptionLocale locale, int maxWaiting) {
        this.limits = limits;
        this.registry = registry;
        Limits first = limits.get();
        this.memory = new MemoryBuckets(first.maxKeys(), nanoClock);
        this.shared = shared;
        this.metrics = new LimitMetrics(meters);
        this.texts = Texts.of(locale);
        this.timer = timer;
        this.maxWaiting = maxWaiting;
        if (shared == null && first.anyShared()) {
            LoggerFactory.getLogger(LimitStep.class).warn("limits: shared rules but no shared store; their buckets"
                    + " are counted by this instance alone");
        }
    }

    /**
     * The step.
     *
     * @param limits the limits in force, read once per call (must be cheap and never {@code null})
     * @param shared where the buckets of shared rules live, or {@code null}: this instance's memory
     * @param registry the registry whose tools per-turn caps count
     * @param nanoClock the clock the in-memory buckets refill by, in nanoseconds
     * @param timer the scheduler of waits and store timeouts
     * @param meters where the limit meters go
     * @param locale the language of refusal texts
     * @param maxWaiting the most calls waiting for one concurrency cap (more are refused)
     */
    public static LimitStep create(Supplier<Limits> limits, RateLimitStore shared, ToolRegistry registry,
                                   LongSupplier nanoClock, Scheduler timer, MeterRegistry meters,
                                   DescriptionLocale locale, int maxWaiting) {
        return new LimitStep(Objects.requireNonNull(limits, "limits"), shared, Objects.requireNonNull(registry, "registry"),
                Objects.requireNonNull(nanoClock, "nanoClock"), Objects.requireNonNull(timer, "timer"),
                Objects.requireNonNull(meters, "meters"), Objects.requireNonNull(locale, "locale"), maxWaiting);
    }

    /**
     * One call's passage through the limits: its verdict, and what it holds until {@link #release()}.
     */
    public interface Admission {

        /** Nothing applies: no verdict, nothing to release. */
        Admission NONE = LimitAdmission.NONE;

        /**
         * {@code null}: the call may go on now; else a Mono completing empty (go on) or with the error to
         * end the call with. Disposing its subscription (a cancel) withdraws the call from any wait.
         */
        Mono<ErrorInfo> verdict();

        /** The call ended (on any path): gives back every permit held and withdraws any wait. Idempotent. */
        void release();
    }

    /** The admission of call {@code index} of a turn; {@link Admission#NONE} when no rule matches. */
    public Admission admit(ToolCallsEvent turn, int index, ToolDefinition def, ToolSource source) {
        Limits l = limits.get();
        if (l.isEmpty()) {
            return LimitAdmission.NONE;
        }
        Rule[] rules = compiled(l).rules;
        CallContext ctx = turn.context();
        int first = -1;
        int count = 0;
        for (int i = 0; i < rules.length; i++) {
            if (rules[i].matches(def, source, turn.streamId(), ctx)) {
                if (first < 0) {
                    first = i;
                }
                count++;
            }
        }
        if (count == 0) {
            return LimitAdmission.NONE;
        }
        Rule[] matched = new Rule[count];
        String[] keys = new String[count];
        for (int i = first, n = 0; i < rules.length && n < count; i++) {
            if (i == first || rules[i].matches(def, source, turn.streamId(), ctx)) {
                matched[n] = rules[i];
                keys[n] = rules[i].key(turn.streamId(), ctx);
                n++;
            }
        }
        for (Rule r : matched) {
            LimitRule lr = r.rule;
            if (lr.maxCallsPerTool() > 0 && callsOfTool(turn, index) > lr.maxCallsPerTool()) {
                r.meters.refusedTurn.increment();
                return LimitAdmission.refused(LimitAdmission.perTool(texts, def.name(), lr));
            }
            if (lr.maxCallsPerTurn() > 0 && matchingCalls(turn, index, r) > lr.maxCallsPerTurn()) {
                r.meters.refusedTurn.increment();
                return LimitAdmission.refused(LimitAdmission.perTurn(texts, def.name(), lr));
            }
        }
        LimitAdmission a = new LimitAdmission(this, def.name(), matched, keys);
        a.start();
        return a;
    }

    /** Concurrency caps that hold or wait for a permit now (diagnostics: zero when no call is limited). */
    public int capKeys() {
        return caps.keys();
    }

    /** The store a rule's bucket lives in. */
    RateLimitStore store(LimitRule r) {
        return r.shared() && shared != null ? shared : memory;
    }

    /** Calls 0..index of the turn that name the same tool as call {@code index}. */
    private static int callsOfTool(ToolCallsEvent turn, int index) {
        List<ToolCall> calls = turn.calls();
        String name = calls.get(index).name();
        int n = 0;
        for (int j = 0; j <= index; j++) {
            if (calls.get(j).name().equals(name)) {
                n++;
            }
        }
        return n;
    }

    /** Calls 0..index of the turn whose tool the rule matches (unknown tools do not count). */
    private int matchingCalls(ToolCallsEvent turn, int index, Rule r) {
        List<ToolCall> calls = turn.calls();
        int n = 0;
        for (int j = 0; j <= index; j++) {
            ToolRegistry.Entry e = calls.get(j).name().isEmpty() ? null : registry.find(calls.get(j).name());
            if (e != null && r.matches(e.tool().definition(), e.source(), turn.streamId(), turn.context())) {
                n++;
            }
        }
        return n;
    }

    private Compiled compiled(Limits l) {
        Compiled c = compiled;
        if (c.limits != l) {
            Rule[] rules = new Rule[l.rules().size()];
            for (int i = 0; i < rules.length; i++) {
                LimitRule r = l.rules().get(i);
                rules[i] = new Rule(r, metrics.rule(r.name()));
            }
            c = new Compiled(l, rules);
            compiled = c;
        }
        return c;
    }

    private record Compiled(Limits limits, Rule[] rules) {
    }

    /** A rule with its match lists as arrays and its meters. */
    static final class Rule {
        final LimitRule rule;
        final LimitMetrics.Rule meters;
        private final String[] tools;
        private final String[] plugins;
        private final String[] sources;
        private final String[] users;
        private final String[] streams;
        private final String[] agents;
        private final String keyPrefix;

        Rule(LimitRule rule, LimitMetrics.Rule meters) {
            this.rule = rule;
            this.meters = meters;
            tools = rule.tools().toArray(String[]::new);
            plugins = rule.plugins().toArray(String[]::new);
            sources = rule.sources().toArray(String[]::new);
            users = rule.users().toArray(String[]::new);
            streams = rule.streams().toArray(String[]::new);
            agents = rule.agents().toArray(String[]::new);
            keyPrefix = rule.name() + "|" + rule.per().wireName() + "|";
        }

        boolean matches(ToolDefinition def, ToolSource source, String streamId, CallContext ctx) {
            if (tools.length > 0 && !any(tools, def.name()) && (def.originalName() == null
                    || !any(tools, def.originalName()))) {
                return false;
            }
            if (plugins.length > 0 && !any(plugins, def.pluginId())) {
                return false;
            }
            if (sources.length > 0) {
                String s = sourceName(source);
                if (!any(sources, s) && !(source == ToolSource.MCP && def.pluginId() != null
                        && any(sources, "mcp:" + def.pluginId()))) {
                    return false;
                }
            }
            return (users.length == 0 || any(users, ctx.userId()))
                    && (streams.length == 0 || any(streams, streamId))
                    && (agents.length == 0 || any(agents, ctx.agentId()));
        }

        /** The bucket and cap key of a call: the rule, and the user, stream or agent when per is set. */
        String key(String streamId, CallContext ctx) {
            return switch (rule.per()) {
                case NONE -> keyPrefix;
                case USER -> keyPrefix + bounded(ctx.userId());
                case STREAM -> keyPrefix + bounded(streamId);
                case AGENT -> keyPrefix + bounded(ctx.agentId());
            };
        }

        /** The most characters of an id kept in a key (longer ids are cut and hashed, so keys stay small). */
        static final int MAX_ID_CHARS = 128;

        static String bounded(String s) {
            if (s == null) {
                return "";
            }
            if (s.length() <= MAX_ID_CHARS) {
                return s;
            }
            return s.substring(0, MAX_ID_CHARS - 18) + "#" + Integer.toHexString(s.hashCode()) + "-" + s.length();
        }

        private static String sourceName(ToolSource s) {
            return switch (s) {
                case CORE -> "core";
                case PLUGIN -> "plugin";
                case STDIO -> "stdio";
                case MCP -> "mcp";
            };
        }

        private static boolean any(String[] globs, String value) {
            if (value == null) {
                return false;
            }
            for (String g : globs) {
                if (glob(g, value)) {
                    return true;
                }
            }
            return false;
        }

        /** Whether {@code s} matches {@code g} ({@code *} any run of characters), ignoring case; allocates nothing. */
        static boolean glob(String g, String s) {
            int gi = 0;
            int si = 0;
            int star = -1;
            int mark = 0;
            while (si < s.length()) {
                if (gi < g.length() && g.charAt(gi) != '*' && same(g.charAt(gi), s.charAt(si))) {
                    gi++;
                    si++;
                } else if (gi < g.length() && g.charAt(gi) == '*') {
                    star = gi++;
                    mark = si;
                } else if (star >= 0) {
                    gi = star + 1;
                    si = ++mark;
                } else {
                    return false;
                }
            }
            while (gi < g.length() && g.charAt(gi) == '*') {
                gi++;
            }
            return gi == g.length();
        }

        private static boolean same(char a, char b) {
            return a == b || Character.toLowerCase(a) == Character.toLowerCase(b)
                    || Character.toUpperCase(a) == Character.toUpperCase(b);
        }
    }
}
