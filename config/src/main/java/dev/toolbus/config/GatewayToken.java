package dev.toolbus.config;

import dev.toolbus.auth.TokenScope;
import dev.toolbus.policy.PermissionLevel;
import java.util.List;
import java.util.Objects;

/**
 * One scoped token of {@code gateway.tokens}. Immutable; built with {@link #builder(String)}; its
 * {@link #toString()} masks the secret.
 */
public final class GatewayToken {

    private final String name;
    private final String token;
    private final PermissionLevel maxPermission;
    private final List<String> agents;
    private final List<String> channels;
    private final List<String> streams;
    private final boolean approvalOverride;

    private GatewayToken(Builder b) {
        String name = b.name;
        String token = b.token;
        PermissionLevel maxPermission = b.maxPermission;
        List<String> agents = b.agents;
        List<String> channels = b.channels;
        List<String> streams = b.streams;
        Objects.requireNonNull(name, "name");
        token = Objects.requireNonNullElse(token, "");
        Objects.requireNonNull(maxPermission, "maxPermission");
        agents = List.copyOf(agents);
        channels = List.copyOf(channels);
        streams = List.copyOf(streams);
        this.name = name;
        this.token = token;
        this.maxPermission = maxPermission;
        this.agents = agents;
        this.channels = channels;
        this.streams = streams;
        this.approvalOverride = b.approvalOverride;
    }

    /** A builder holding this token's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.name = name;
        b.token = token;
        b.maxPermission = maxPermission;
        b.agents = agents;
        b.channels = channels;
        b.streams = streams;
        b.approvalOverride = approvalOverride;
        return b;
    }

    /**
     * Starts a builder of a token named {@code name}: member at most, any agent, channel and stream.
     *
     * @param name a label for logs and errors
     */
    public static Builder builder(String name) {
        Builder b = new Builder();
        b.name = Objects.requireNonNull(name, "name");
        return b;
    }

    /** A label for logs and errors. */
    public String name() {
        return name;
    }

    /** The secret (usually {@code ${ENV}}; may be empty). */
    public String token() {
        return token;
    }

    /** The highest permission a context may claim. */
    public PermissionLevel maxPermission() {
        return maxPermission;
    }

    /** Agent globs (empty: any). */
    public List<String> agents() {
        return agents;
    }

    /** Channel globs (empty: any). */
    public List<String> channels() {
        return channels;
    }

    /** Stream globs (empty: any). */
    public List<String> streams() {
        return streams;
    }

    /** {@code approval: override}: this token's turns may loosen approval with {@code context.approval_mode}. */
    public boolean approvalOverride() {
        return approvalOverride;
    }

    /** The scope of this token. */
    public TokenScope scope() {
        return TokenScope.builder(name).maxPermission(maxPermission).agents(agents).channels(channels)
                .streams(streams).approvalOverride(approvalOverride).build();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GatewayToken e && name.equals(e.name) && token.equals(e.token)
                && maxPermission.equals(e.maxPermission) && agents.equals(e.agents) && channels.equals(e.channels)
                && streams.equals(e.streams) && approvalOverride == e.approvalOverride;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, token, maxPermission, agents, channels, streams, approvalOverride);
    }

    @Override
    public String toString() {
        return "GatewayToken[" + name + ", ***, " + maxPermission.wireName() + ", agents " + agents + ", channels "
                + channels + ", streams " + streams + "]";
    }

    /**
     * Builder of {@link GatewayToken}.
     */
    public static final class Builder {
        private String name;
        private String token;
        private PermissionLevel maxPermission = PermissionLevel.MEMBER;
        private List<String> agents = List.of();
        private List<String> channels = List.of();
        private List<String> streams = List.of();
        private boolean approvalOverride;

        private Builder() {
        }

        /** {@code approval: override}: its turns may loosen approval with {@code context.approval_mode}. */
        public Builder approvalOverride(boolean approvalOverride) {
            this.approvalOverride = approvalOverride;
            return this;
        }

        /** The secret (usually {@code ${ENV}}; {@code null}: empty). */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /** The highest permission a context may claim (default {@code member}). */
        public Builder maxPermission(PermissionLevel maxPermission) {
            this.maxPermission = maxPermission;
            return this;
        }

        /** Agent globs (empty: any). */
        public Builder agents(List<String> agents) {
            this.agents = agents;
            return this;
        }

        /** Channel globs (empty: any). */
        public Builder channels(List<String> channels) {
            this.channels = channels;
            return this;
        }

        /** Stream globs (empty: any). */
        public Builder streams(List<String> streams) {
            this.streams = streams;
            return this;
        }

        /**
         * The token.
         *
         * @throws NullPointerException when {@code maxPermission} or a list is {@code null}
         */
        public GatewayToken build() {
            return new GatewayToken(this);
        }
    }
}
