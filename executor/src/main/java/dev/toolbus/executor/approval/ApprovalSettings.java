package dev.toolbus.executor.approval;

import static dev.toolbus.spi.Checks.requireArgument;
import static dev.toolbus.spi.Checks.requireMillis;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.Risk;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * When a call waits for a human yes, how risk is classified, session grants. Immutable; built with a
 * strict builder that throws {@link IllegalArgumentException} for a value out of range. Reading loose
 * values (the {@code approval} section of {@code toolbus.yaml}, flags) with fallbacks is
 * {@code toolbus-config}'s {@code ApprovalSection}.
 *
 * <p>The mode of a call is, first match: the turn's {@code context.approval_mode}, the agent's mode
 * ({@link #agents()}), {@link #mode()}. A risk is, first match: the tool's own declaration, the
 * {@link #high()}/{@link #medium()}/{@link #low()} lists, dangerous (the definition's flag or
 * {@link #dangerousTools()}) → high, MCP annotations ({@code destructiveHint} → high,
 * {@code readOnlyHint} → low), then name patterns (read-only verbs → low before the medium nouns),
 * else medium. List entries are tool names or plugin ids, case-insensitive, {@code *} globs allowed.
 *
 * <pre>{@code
 * ApprovalSettings approval = ApprovalSettings.builder()
 *         .mode(ApprovalMode.AUTO)
 *         .timeout(Duration.ofMinutes(2))
 *         .high(List.of("wipe_*"))
 *         .bypass(List.of("echo"))
 *         .build();
 * ToolExecutor executor = ToolExecutor.builder().approval(approval).build();
 * }</pre>
 */
public final class ApprovalSettings {

    public static final long DEFAULT_TIMEOUT_MS = 60_000;
    public static final long MIN_TIMEOUT_MS = 1_000;
    public static final long MAX_TIMEOUT_MS = 24L * 3600 * 1000;
    /** How long a session grant lasts. */
    public static final Duration GRANT_TTL = Duration.ofHours(2);
    /** The most session grants kept (the oldest go first). */
    public static final int GRANT_CAPACITY = 2_000;
    /** The context key of the per-turn mode. */
    public static final String CONTEXT_KEY = "approval_mode";

    private static final ApprovalSettings DEFAULTS = new Builder().build();

    private final ApprovalMode mode;
    private final Duration timeout;
    private final List<String> low;
    private final List<String> medium;
    private final List<String> high;
    private final List<String> bypass;
    private final boolean sessionGrants;
    private final Risk sessionMaxRisk;
    private final Map<String, ApprovalMode> agents;
    private final List<String> dangerousTools;
    private final List<String> warnings;

    private ApprovalSettings(Builder b) {
        this.mode = b.mode;
        this.timeout = b.timeout;
        this.low = b.low;
        this.medium = b.medium;
        this.high = b.high;
        this.bypass = b.bypass;
        this.sessionGrants = b.sessionGrants;
        this.sessionMaxRisk = b.sessionMaxRisk;
        this.agents = Map.copyOf(b.agents);
        this.dangerousTools = b.dangerousTools;
        this.warnings = List.copyOf(b.warnings);
    }

    /** The defaults: mode off (one shared instance). */
    public static ApprovalSettings defaults() {
        return DEFAULTS;
    }

    /** Starts a builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder initialised from these settings (warnings are not carried over). */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.mode = mode;
        b.timeout = timeout;
        b.low = low;
        b.medium = medium;
        b.high = high;
        b.bypass = bypass;
        b.sessionGrants = sessionGrants;
        b.sessionMaxRisk = sessionMaxRisk;
        b.agents.putAll(agents);
        b.dangerousTools = dangerousTools;
        return b;
    }

    /** The default mode ({@link ApprovalMode#OFF} unless configured). */
    public ApprovalMode mode() {
        return mode;
    }

    /** How long a request waits for an answer before its calls end {@code NOT_APPROVED}. */
    public Duration timeout() {
        return timeout;
    }

    /** Tools classified low. */
    public List<String> low() {
        return low;
    }

    /** Tools classified medium. */
    public List<String> medium() {
        return medium;
    }

    /** Tools classified high. */
    public List<String> high() {
        return high;
    }

    /** Tools that never ask (except in {@code ask} mode). */
    public List<String> bypass() {
        return bypass;
    }

    /** Whether {@code approve_session} grants anything. */
    public boolean sessionGrants() {
        return sessionGrants;
    }

    /** The highest risk a session grant covers. */
    public Risk sessionMaxRisk() {
        return sessionMaxRisk;
    }

    /** Modes by agent id. */
    public Map<String, ApprovalMode> agents() {
        return agents;
    }

    /** The policy's dangerous list (classified high); the config wires {@code security.dangerousTools}. */
    public List<String> dangerousTools() {
        return dangerousTools;
    }

    /**
     * The problems a lenient reader found while reading these settings (the config's reader records its
     * fallbacks here; a reload with any keeps the last good settings). The builder's setters never add
     * one: they throw.
     */
    public List<String> warnings() {
        return warnings;
    }

    /**
     * The mode of a call: the turn's {@code context.approval_mode} when it names a mode, else the
     * agent's, else {@link #mode()}. An unreadable per-turn value is ignored.
     */
    public ApprovalMode modeFor(CallContext context) {
        return modeFor(context, true);
    }

    /**
     * The mode of a call of a turn whose sender may or may not loosen approval: the agent's mode, else
     * {@link #mode()}; the turn's {@code context.approval_mode} replaces it when {@code mayLoosen}, and
     * otherwise only when it is stricter ({@code off < auto < confirm_all < ask}): a scoped token without
     * {@code approval: override} may ask for more approval, never less.
     */
    public ApprovalMode modeFor(CallContext context, boolean mayLoosen) {
        if (context == null) {
            return mode;
        }
        ApprovalMode agent = context.agentId().isEmpty() ? null : agents.get(context.agentId());
        ApprovalMode configured = agent != null ? agent : mode;
        ApprovalMode turn = ApprovalMode.parse(context.extra().get(CONTEXT_KEY));
        if (turn == null) {
            return configured;
        }
        return mayLoosen || turn.compareTo(configured) >= 0 ? turn : configured;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ApprovalSettings s && mode == s.mode && timeout.equals(s.timeout) && low.equals(s.low)
                && medium.equals(s.medium) && high.equals(s.high) && bypass.equals(s.bypass)
                && sessionGrants == s.sessionGrants && sessionMaxRisk == s.sessionMaxRisk && agents.equals(s.agents)
                && dangerousTools.equals(s.dangerousTools) && warnings.equals(s.warnings);
    }

    @Override
    public int hashCode() {
        return Objects.hash(mode, timeout, low, medium, high, bypass, sessionGrants, sessionMaxRisk, agents,
                dangerousTools, warnings);
    }

    @Override
    public String toString() {
        return "ApprovalSettings[mode=" + mode + ", timeout=" + timeout + ", low=" + low + ", medium=" + medium
                + ", high=" + high + ", bypass=" + bypass + ", sessionGrants=" + sessionGrants + ", sessionMaxRisk="
                + sessionMaxRisk + ", agents=" + agents + ", dangerousTools=" + dangerousTools + ", warnings="
                + warnings + "]";
    }

    /**
     * Builder of {@link ApprovalSettings}, starting from the defaults; every setter throws
     * {@link IllegalArgumentException} (or {@link NullPointerException} for a missing value) on a bad value.
     */
    public static final class Builder {
        private ApprovalMode mode = ApprovalMode.OFF;
        private Duration timeout = Duration.ofMillis(DEFAULT_TIMEOUT_MS);
        private List<String> low = List.of();
        private List<String> medium = List.of();
        private List<String> high = List.of();
        private List<String> bypass = List.of();
        private boolean sessionGrants = true;
        private Risk sessionMaxRisk = Risk.MEDIUM;
        private final Map<String, ApprovalMode> agents = new LinkedHashMap<>();
        private List<String> dangerousTools = List.of();
        private final List<String> warnings = new ArrayList<>();

        private Builder() {
        }

        /** The default mode (default off). */
        public Builder mode(ApprovalMode value) {
            mode = Objects.requireNonNull(value, "mode");
            return this;
        }

        /** How long a request waits for its answer: 1 s..24 h (default 60 s). */
        public Builder timeout(Duration value) {
            timeout = requireMillis(value, MIN_TIMEOUT_MS, MAX_TIMEOUT_MS, "timeout");
            return this;
        }

        /** {@link #timeout(Duration)} in ms: 1000..86400000. */
        public Builder timeoutMs(long value) {
            return timeout(Duration.ofMillis(value));
        }

        /** Tools classified low (names, plugin ids, {@code *} globs). */
        public Builder low(List<String> names) {
            low = names(names, "low");
            return this;
        }

        /** Tools classified medium. */
        public Builder medium(List<String> names) {
            medium = names(names, "medium");
            return this;
        }

        /** Tools classified high. */
        public Builder high(List<String> names) {
            high = names(names, "high");
            return this;
        }

        /** Tools that never ask (except in {@code ask} mode). */
        public Builder bypass(List<String> names) {
            bypass = names(names, "bypass");
            return this;
        }

        /** Whether {@code approve_session} grants anything (default true). */
        public Builder sessionGrants(boolean value) {
            sessionGrants = value;
            return this;
        }

        /** The highest risk a session grant covers (default medium). */
        public Builder sessionMaxRisk(Risk value) {
            sessionMaxRisk = Objects.requireNonNull(value, "sessionMaxRisk");
            return this;
        }

        /** The mode of one agent (a non-blank agent id). */
        public Builder agent(String agentId, ApprovalMode agentMode) {
            requireArgument(agentId != null && !agentId.isBlank(), "an agent needs a non-blank id");
            agents.put(agentId, Objects.requireNonNull(agentMode, "agent mode"));
            return this;
        }

        /** The policy's dangerous list (classified high). */
        public Builder dangerousTools(List<String> names) {
            dangerousTools = names(names, "dangerousTools");
            return this;
        }

        /**
         * Records a problem a lenient reader found (see {@link ApprovalSettings#warnings()}): config's
         * reader does; code that builds settings itself has none to record.
         */
        public Builder warn(String message) {
            warnings.add(Objects.requireNonNull(message, "message"));
            return this;
        }

        /** The settings. */
        public ApprovalSettings build() {
            return new ApprovalSettings(this);
        }

        private static List<String> names(List<String> names, String list) {
            Objects.requireNonNull(names, list);
            for (String n : names) {
                requireArgument(n != null && !n.isBlank(), list + " entries must be non-blank names, got '" + n + "'");
            }
            return List.copyOf(names);
        }
    }
}
