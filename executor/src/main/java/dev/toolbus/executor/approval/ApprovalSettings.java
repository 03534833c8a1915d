package dev.toolbus.executor.approval;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.Risk;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Immutable approval settings: when a call waits for a human yes, how risk is classified, session
 * grants. Bad values never fail: they fall back as docs/configuration.md says and every fallback is
 * recorded in {@link #warnings()}.
 *
 * <p>The mode of a call is, first match: the turn's {@code context.approval_mode}, the agent's mode
 * ({@link #agents()}), {@link #mode()}. A risk is, first match: the tool's own declaration, the
 * {@link #high()}/{@link #medium()}/{@link #low()} lists, dangerous (the definition's flag or
 * {@link #dangerousTools()}) → high, MCP annotations ({@code destructiveHint} → high,
 * {@code readOnlyHint} → low), then name patterns (read-only verbs → low before the medium nouns),
 * else medium. List entries are tool names or plugin ids, case-insensitive, {@code *} globs allowed.
 *
 * @param mode the default mode ({@link ApprovalMode#OFF} unless configured)
 * @param timeout how long a request waits for an answer before its calls end {@code NOT_APPROVED}
 * @param low tools classified low
 * @param medium tools classified medium
 * @param high tools classified high
 * @param bypass tools that never ask (except in {@code ask} mode)
 * @param sessionGrants whether {@code approve_session} grants anything
 * @param sessionMaxRisk the highest risk a session grant covers
 * @param agents modes by agent id
 * @param dangerousTools the policy's dangerous list (classified high); the config wires {@code security.dangerousTools}
 * @param warnings the fallbacks applied while building these settings
 */
public record ApprovalSettings(
        ApprovalMode mode,
        Duration timeout,
        List<String> low,
        List<String> medium,
        List<String> high,
        List<String> bypass,
        boolean sessionGrants,
        Risk sessionMaxRisk,
        Map<String, ApprovalMode> agents,
        List<String> dangerousTools,
        List<String> warnings) {

    public static final long DEFAULT_TIMEOUT_MS = 60_000;
    public static final long MIN_TIMEOUT_MS = 1_000;
    public static final long MAX_TIMEOUT_MS = 24L * 3600 * 1000;
    /** How long a session grant lasts. */
    public static final Duration GRANT_TTL = Duration.ofHours(2);
    /** The most session grants kept (the oldest go first). */
    public static final int GRANT_CAPACITY = 2_000;
    /** The context key of the per-turn mode. */
    public static final String CONTEXT_KEY = "approval_mode";

    public ApprovalSettings {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(sessionMaxRisk, "sessionMaxRisk");
        if (timeout.toMillis() < 1) {
            throw new IllegalArgumentException("timeout must be positive; build settings with ApprovalSettings.builder()");
        }
        low = List.copyOf(low);
        medium = List.copyOf(medium);
        high = List.copyOf(high);
        bypass = List.copyOf(bypass);
        agents = Map.copyOf(agents);
        dangerousTools = List.copyOf(dangerousTools);
        warnings = List.copyOf(warnings);
    }

    private static final ApprovalSettings DEFAULTS = new Builder().build();

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
        b.timeoutMs = timeout.toMillis();
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

    /**
     * The mode of a call: the turn's {@code context.approval_mode} when it names a mode, else the
     * agent's, else {@link #mode()}. An unreadable per-turn value is ignored.
     */
    public ApprovalMode modeFor(CallContext context) {
        if (context == null) {
            return mode;
        }
        ApprovalMode turn = ApprovalMode.parse(context.extra().get(CONTEXT_KEY));
        if (turn != null) {
            return turn;
        }
        ApprovalMode agent = context.agentId().isEmpty() ? null : agents.get(context.agentId());
        return agent != null ? agent : mode;
    }

    /** Parses {@code low} / {@code medium} / {@code high} (case-insensitive); {@code null} for anything else. */
    public static Risk parseRisk(Object value) {
        if (value instanceof Risk r) {
            return r;
        }
        if (!(value instanceof String s)) {
            return null;
        }
        try {
            return Risk.parse(s);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Builder of {@link ApprovalSettings}; loosely typed setters fall back with a warning. */
    public static final class Builder {
        private ApprovalMode mode = ApprovalMode.OFF;
        private long timeoutMs = DEFAULT_TIMEOUT_MS;
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

        /** Records a fallback (config readers add their own). */
        public Builder warn(String message) {
            warnings.add(Objects.requireNonNull(message, "message"));
            return this;
        }

        /** The default mode: off, auto, confirm_all or ask; anything else → off (warned). */
        public Builder mode(Object value) {
            ApprovalMode m = ApprovalMode.parse(value);
            if (m == null) {
                warn("mode '" + value + "' is not off, auto, confirm_all or ask; using off");
                m = ApprovalMode.OFF;
            }
            mode = m;
            return this;
        }

        /** The answer timeout in ms: below 1000 → 1000; above 24 h → 24 h; not a number → 60000 (warned). */
        public Builder timeoutMs(Object value) {
            Double d = dev.toolbus.internal.LooseNumbers.number(value);
            if (d == null) {
                warn("timeoutMs '" + value + "' is not a number; using " + DEFAULT_TIMEOUT_MS);
                timeoutMs = DEFAULT_TIMEOUT_MS;
            } else if (d < MIN_TIMEOUT_MS) {
                warn("timeoutMs " + d.longValue() + " is below " + MIN_TIMEOUT_MS + "; using " + MIN_TIMEOUT_MS);
                timeoutMs = MIN_TIMEOUT_MS;
            } else if (d > MAX_TIMEOUT_MS) {
                warn("timeoutMs " + d.longValue() + " is above " + MAX_TIMEOUT_MS + "; using " + MAX_TIMEOUT_MS);
                timeoutMs = MAX_TIMEOUT_MS;
            } else {
                timeoutMs = d.longValue();
            }
            return this;
        }

        /** The answer timeout. */
        public Builder timeout(Duration timeout) {
            return timeoutMs(timeout == null ? null : timeout.toMillis());
        }

        public Builder low(List<String> names) {
            low = List.copyOf(names);
            return this;
        }

        public Builder medium(List<String> names) {
            medium = List.copyOf(names);
            return this;
        }

        public Builder high(List<String> names) {
            high = List.copyOf(names);
            return this;
        }

        public Builder bypass(List<String> names) {
            bypass = List.copyOf(names);
            return this;
        }

        public Builder sessionGrants(boolean value) {
            sessionGrants = value;
            return this;
        }

        /** The highest risk a session grant covers: low, medium or high; anything else → medium (warned). */
        public Builder sessionMaxRisk(Object value) {
            Risk r = parseRisk(value);
            if (r == null) {
                warn("sessionMaxRisk '" + value + "' is not low, medium or high; using medium");
                r = Risk.MEDIUM;
            }
            sessionMaxRisk = r;
            return this;
        }

        /** The mode of one agent; an unknown mode is warned about and the agent follows the default mode. */
        public Builder agent(String agentId, Object modeValue) {
            Objects.requireNonNull(agentId, "agentId");
            ApprovalMode m = ApprovalMode.parse(modeValue);
            if (m == null) {
                warn("agents." + agentId + ".mode '" + modeValue
                        + "' is not off, auto, confirm_all or ask; the agent uses the default mode");
                agents.remove(agentId);
            } else {
                agents.put(agentId, m);
            }
            return this;
        }

        /** The policy's dangerous list (classified high). */
        public Builder dangerousTools(List<String> names) {
            dangerousTools = List.copyOf(names);
            return this;
        }

        public ApprovalSettings build() {
            return new ApprovalSettings(mode, Duration.ofMillis(timeoutMs), low, medium, high, bypass, sessionGrants,
                    sessionMaxRisk, agents, dangerousTools, warnings);
        }
    }
}
