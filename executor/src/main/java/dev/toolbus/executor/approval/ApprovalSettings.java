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
 * ({@link #agents()}), {@link #mode()}. What configuration gives a tool is a floor its own declaration
 * may raise but never lower: the {@link #high()}/{@link #medium()}/{@link #low()} lists (first match),
 * else dangerous (the definition's flag, {@link #dangerousTools()} or a well-known destructive name) →
 * high. A tool configuration says nothing of: its declaration, else MCP annotations
 * ({@code destructiveHint} → high, {@code readOnlyHint} → low), then name patterns (read-only verbs →
 * low before the medium nouns), else medium. List entries are tool names or plugin ids,
 * case-insensitive, {@code *} globs allowed; they match a tool's registered name, the name its source
 * gave it (an MCP tool renamed {@code ext__wipe} on a clash is still {@code wipe}) and
 * {@code <plugin>:<name>} alike.
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
    /** The default of {@link #maxWaitingBytes()}: 64 MiB. */
    public static final long DEFAULT_MAX_WAITING_BYTES = 64L << 20;
    /** The default of {@link #maxWaitingBytesPerPrincipal()}: 16 MiB. */
    public static final long DEFAULT_MAX_WAITING_BYTES_PER_PRINCIPAL = 16L << 20;
    /** The least either bound may be: 64 KiB. */
    public static final long MIN_WAITING_BYTES = 64L << 10;
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
    private final long maxWaitingBytes;
    private final long maxWaitingBytesPerPrincipal;
    private final boolean askProgrammatic;
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
        this.maxWaitingBytes = b.maxWaitingBytes;
        this.maxWaitingBytesPerPrincipal = b.maxWaitingBytesPerPrincipal;
        this.askProgrammatic = b.askProgrammatic;
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
        b.maxWaitingBytes = maxWaitingBytes;
        b.maxWaitingBytesPerPrincipal = maxWaitingBytesPerPrincipal;
        b.askProgrammatic = askProgrammatic;
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
     * The most bytes the turns waiting for approval may hold, all together (their events, weighed as
     * the heap holds them: strings at two bytes a character, a node's overhead). A turn that would go
     * past it is not asked: its calls end {@code REJECTED} at once (default 64 MiB).
     */
    public long maxWaitingBytes() {
        return maxWaitingBytes;
    }

    /**
     * {@link #maxWaitingBytes()} for the turns of one principal (who sent them), where the ingress says
     * who that is (default 16 MiB).
     */
    public long maxWaitingBytesPerPrincipal() {
        return maxWaitingBytesPerPrincipal;
    }

    /**
     * Whether a call made by code the model runs (a programmatic caller) that needs approval waits for
     * it ({@code approval.programmatic: ask}); by default ({@code false}) it ends {@code NOT_APPROVED} at
     * once, because code cannot wait for a person.
     */
    public boolean askProgrammatic() {
        return askProgrammatic;
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
                && dangerousTools.equals(s.dangerousTools) && maxWaitingBytes == s.maxWaitingBytes
                && maxWaitingBytesPerPrincipal == s.maxWaitingBytesPerPrincipal && askProgrammatic == s.askProgrammatic
                && warnings.equals(s.warnings);
    }

    @Override
    public int hashCode() {
        return Objects.hash(mode, timeout, low, medium, high, bypass, sessionGrants, sessionMaxRisk, agents,
                dangerousTools, maxWaitingBytes, maxWaitingBytesPerPrincipal, askProgrammatic, warnings);
    }

    @Override
    public String toString() {
        return "ApprovalSettings[mode=" + mode + ", timeout=" + timeout + ", low=" + low + ", medium=" + medium
                + ", high=" + high + ", bypass=" + bypass + ", sessionGrants=" + sessionGrants + ", sessionMaxRisk="
                + sessionMaxRisk + ", agents=" + agents + ", dangerousTools=" + dangerousTools + ", maxWaitingBytes="
                + maxWaitingBytes + ", maxWaitingBytesPerPrincipal=" + maxWaitingBytesPerPrincipal + ", askProgrammatic="
                + askProgrammatic + ", warnings="
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
        private long maxWaitingBytes = DEFAULT_MAX_WAITING_BYTES;
        private long maxWaitingBytesPerPrincipal = DEFAULT_MAX_WAITING_BYTES_PER_PRINCIPAL;
        private boolean askProgrammatic;
        private final List<String> warnings = new ArrayList<>();

        private Builder() {
        }

        /**
         * Whether a programmatic call that needs approval waits for it (default {@code false}: it ends
         * {@code NOT_APPROVED} at once).
         */
        public Builder askProgrammatic(boolean value) {
            askProgrammatic = value;
            return this;
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

        /** {@link ApprovalSettings#maxWaitingBytes()}: at least 64 KiB (default 64 MiB). */
        public Builder maxWaitingBytes(long value) {
            requireArgument(value >= MIN_WAITING_BYTES, "maxWaitingBytes must be at least " + MIN_WAITING_BYTES
                    + " bytes, got " + value);
            maxWaitingBytes = value;
            return this;
        }

        /** {@link ApprovalSettings#maxWaitingBytesPerPrincipal()}: at least 64 KiB (default 16 MiB). */
        public Builder maxWaitingBytesPerPrincipal(long value) {
            requireArgument(value >= MIN_WAITING_BYTES, "maxWaitingBytesPerPrincipal must be at least "
                    + MIN_WAITING_BYTES + " bytes, got " + value);
            maxWaitingBytesPerPrincipal = value;
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
