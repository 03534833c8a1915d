package dev.toolbus.auth;

import dev.toolbus.policy.PermissionLevel;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.spi.Principal;
import java.util.List;
import java.util.Objects;

/**
 * What the holder of one token may claim: a highest permission level, and optionally the agents,
 * channels and streams it may use ({@code *} globs; an empty list allows any). Agent ids and channels
 * match case-insensitively (as the tool policy reads them), stream ids exactly.
 *
 * <p>A context that claims more than the scope is refused, or, with {@link AccessTokens.OnExcess#CLAMP},
 * its permission is lowered to the scope's highest level. An agent, channel or stream outside the
 * scope is always refused: there is nothing to clamp it to. A scope that restricts agents or channels
 * refuses a context that names none.
 *
 * <pre>{@code
 * TokenScope bot = TokenScope.builder("discord-bot").maxPermission(PermissionLevel.ADMIN)
 *         .streams(List.of("discord:*")).build();
 * }</pre>
 */
public final class TokenScope {

    /** Everything: {@code master}, any agent, channel and stream (what a single configured token gets). */
    public static final TokenScope FULL = builder("default").build();

    private final String name;
    private final PermissionLevel maxPermission;
    private final Globs agents;
    private final Globs channels;
    private final Globs streams;
    private final boolean approvalOverride;
    private final Principal principal;

    private TokenScope(Builder b) {
        this.name = b.name;
        this.maxPermission = b.maxPermission;
        this.agents = Globs.of(b.agents, true);
        this.channels = Globs.of(b.channels, true);
        this.streams = Globs.of(b.streams, false);
        this.approvalOverride = b.approvalOverride;
        this.principal = Principal.token(name).maxPermission(maxPermission.wireName())
                .approvalOverride(approvalOverride || unrestricted()).build();
    }

    /**
     * Starts a builder: {@code master}, any agent, channel and stream until restricted.
     *
     * @param name a label for logs and errors (never the token itself)
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** The label of the token. */
    public String name() {
        return name;
    }

    /** The highest permission level a context may claim. */
    public PermissionLevel maxPermission() {
        return maxPermission;
    }

    /** The agent globs (empty: any). */
    public List<String> agents() {
        return agents.raw();
    }

    /** The channel globs (empty: any). */
    public List<String> channels() {
        return channels.raw();
    }

    /** The stream globs (empty: any). */
    public List<String> streams() {
        return streams.raw();
    }

    /** Whether the scope allows every agent, channel and stream at {@code master}. */
    public boolean unrestricted() {
        return maxPermission == PermissionLevel.MASTER && agents.any() && channels.any() && streams.any();
    }

    /**
     * Whether a turn sent with this token may loosen approval through {@code context.approval_mode} (for
     * example to {@code off}): configured as {@code approval: override}; an unrestricted scope always may.
     * Without it a turn's mode may only make approval stricter than the configured one.
     */
    public boolean approvalOverride() {
        return approvalOverride || unrestricted();
    }

    /**
     * Who the holder of this token is to the executor: a {@link Principal.Kind#TOKEN} principal named by
     * the scope, with its highest permission and approval override. Every turn, answer and read-back sent
     * with the token is bound to it (never to anything the event says).
     */
    public Principal principal() {
        return principal;
    }

    /** Whether the token may use this stream. */
    public boolean allowsStream(String streamId) {
        return streams.matches(streamId);
    }

    /**
     * Checks what a client claims.
     *
     * @param streamId the stream of the event
     * @param context the context the client sent ({@code null}: empty)
     * @param onExcess what to do with a permission above {@link #maxPermission()}
     * @return the context to run with (the same one, or clamped), or the reason of a refusal
     */
    public Admission admit(String streamId, CallContext context, AccessTokens.OnExcess onExcess) {
        CallContext c = context == null ? CallContext.EMPTY : context;
        if (!streams.matches(streamId)) {
            return Admission.refused("token '" + name + "' may not use stream '" + clip(streamId) + "'");
        }
        if (!agents.matches(c.agentId().isEmpty() ? null : c.agentId())) {
            return Admission.refused(c.agentId().isEmpty()
                    ? "token '" + name + "' must name one of its agents in context.agent_id"
                    : "token '" + name + "' may not act as agent '" + clip(c.agentId()) + "'");
        }
        if (!channels.matches(c.channel().isEmpty() ? null : c.channel())) {
            return Admission.refused(c.channel().isEmpty()
                    ? "token '" + name + "' must name one of its channels in context.channel"
                    : "token '" + name + "' may not use channel '" + clip(c.channel()) + "'");
        }
        PermissionLevel claimed = PermissionLevel.parseUser(c.permission());
        if (!maxPermission.atLeast(claimed)) {
            if (onExcess == AccessTokens.OnExcess.CLAMP) {
                return new Admission(c.toBuilder().permission(maxPermission.wireName()).build(), true, null);
            }
            return Admission.refused("token '" + name + "' may claim permission " + maxPermission.wireName()
                    + " at most; the context claims " + claimed.wireName());
        }
        return new Admission(c, false, null);
    }

    private static String clip(String s) {
        if (s == null) {
            return "";
        }
        return s.length() <= 64 ? s : s.substring(0, 64) + "…";
    }

    @Override
    public String toString() {
        return "TokenScope[" + name + ", max " + maxPermission.wireName() + ", agents " + agents + ", channels "
                + channels + ", streams " + streams + (approvalOverride ? ", approval override" : "") + "]";
    }

    /**
     * The outcome of {@link #admit}.
     *
     * @param context the context to run with; {@code null} when refused
     * @param clamped whether the permission was lowered
     * @param refusal why it was refused; {@code null} when admitted
     */
    public record Admission(CallContext context, boolean clamped, String refusal) {
        static Admission refused(String why) {
            return new Admission(null, false, why);
        }

        /** Whether the event may run. */
        public boolean admitted() {
            return refusal == null;
        }
    }

    /** Builder of {@link TokenScope}. */
    public static final class Builder {
        private final String name;
        private PermissionLevel maxPermission = PermissionLevel.MASTER;
        private List<String> agents = List.of();
        private List<String> channels = List.of();
        private List<String> streams = List.of();
        private boolean approvalOverride;

        private Builder(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("a token scope needs a name");
            }
            this.name = name.strip();
        }

        /** The highest permission a context may claim (default {@code master}). */
        public Builder maxPermission(PermissionLevel level) {
            this.maxPermission = Objects.requireNonNull(level, "level");
            return this;
        }

        /** The agent ids it may act as, {@code *} globs (default: any). */
        public Builder agents(List<String> globs) {
            this.agents = List.copyOf(globs);
            return this;
        }

        /** The channels it may use, {@code *} globs (default: any). */
        public Builder channels(List<String> globs) {
            this.channels = List.copyOf(globs);
            return this;
        }

        /** The stream ids it may use, {@code *} globs (default: any). */
        public Builder streams(List<String> globs) {
            this.streams = List.copyOf(globs);
            return this;
        }

        /**
         * Whether turns sent with the token may loosen approval with {@code context.approval_mode}
         * ({@code approval: override} in the config; default {@code false}).
         */
        public Builder approvalOverride(boolean value) {
            this.approvalOverride = value;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws IllegalArgumentException when an entry is blank
         */
        public TokenScope build() {
            return new TokenScope(this);
        }
    }
}
