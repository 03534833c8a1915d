package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Who and where a turn comes from, as the bot core sends it in {@code context}: user, group, platform,
 * permission, the session's channel, the model provider, the model and the agent. Every field may be
 * empty (never {@code null}); unknown keys are kept in {@link #extra()}. Immutable; built with
 * {@link #builder()}.
 *
 * <pre>{@code
 * CallContext who = CallContext.builder().userId("42").permission("admin").channel("qq").build();
 * }</pre>
 */
@JsonPropertyOrder({"user_id", "group_id", "platform", "permission", "channel", "provider", "model", "agent_id"})
public final class CallContext {

    /** The empty context. */
    public static final CallContext EMPTY = new Builder().build();

    private final String userId;
    private final String groupId;
    private final String platform;
    private final String permission;
    private final String channel;
    private final String provider;
    private final String model;
    private final String agentId;
    private final Map<String, Object> extra;

    private CallContext(Builder b) {
        this.userId = v(b.userId);
        this.groupId = v(b.groupId);
        this.platform = v(b.platform);
        this.permission = v(b.permission);
        this.channel = v(b.channel);
        this.provider = v(b.provider);
        this.model = v(b.model);
        this.agentId = v(b.agentId);
        this.extra = b.extra.isEmpty() ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(b.extra));
    }

    private static String v(String s) {
        return s == null ? "" : s;
    }

    /** Starts a builder; every field is optional. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder initialised from this context. */
    public Builder toBuilder() {
        Builder b = new Builder().userId(userId).groupId(groupId).platform(platform).permission(permission)
                .channel(channel).provider(provider).model(model).agentId(agentId);
        b.extra.putAll(extra);
        return b;
    }

    /** The user, or empty. */
    @JsonProperty
    public String userId() {
        return userId;
    }

    /** The group, or empty. */
    @JsonProperty
    public String groupId() {
        return groupId;
    }

    /** The platform (qq, discord, …), or empty. */
    @JsonProperty
    public String platform() {
        return platform;
    }

    /** The caller's permission level (member, admin, owner or master), or empty. */
    @JsonProperty
    public String permission() {
        return permission;
    }

    /** The session's channel, or empty. */
    @JsonProperty
    public String channel() {
        return channel;
    }

    /** The model provider, or empty. */
    @JsonProperty
    public String provider() {
        return provider;
    }

    /** The model, or empty. */
    @JsonProperty
    public String model() {
        return model;
    }

    /** The agent, or empty. */
    @JsonProperty
    public String agentId() {
        return agentId;
    }

    /** Other keys, passed through to tools and policy (for example {@code approval_mode}); unmodifiable. */
    @JsonAnyGetter
    public Map<String, Object> extra() {
        return extra;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CallContext c && userId.equals(c.userId) && groupId.equals(c.groupId)
                && platform.equals(c.platform) && permission.equals(c.permission) && channel.equals(c.channel)
                && provider.equals(c.provider) && model.equals(c.model) && agentId.equals(c.agentId)
                && extra.equals(c.extra);
    }

    @Override
    public int hashCode() {
        return Objects.hash(userId, groupId, platform, permission, channel, provider, model, agentId, extra);
    }

    @Override
    public String toString() {
        return "CallContext[userId=" + userId + ", groupId=" + groupId + ", platform=" + platform + ", permission="
                + permission + ", channel=" + channel + ", provider=" + provider + ", model=" + model + ", agentId="
                + agentId + ", extra=" + extra + "]";
    }

    /**
     * Builder of {@link CallContext}, for code that builds turns in process:
     * {@code CallContext.builder().userId("42").permission("admin").channel("qq").build()}.
     */
    public static final class Builder {
        private String userId;
        private String groupId;
        private String platform;
        private String permission;
        private String channel;
        private String provider;
        private String model;
        private String agentId;
        private final Map<String, Object> extra = new LinkedHashMap<>();

        private Builder() {
        }

        /** The user ({@code null}: empty). */
        public Builder userId(String v) {
            this.userId = v;
            return this;
        }

        /** The group. */
        public Builder groupId(String v) {
            this.groupId = v;
            return this;
        }

        /** The platform (qq, discord, …). */
        public Builder platform(String v) {
            this.platform = v;
            return this;
        }

        /** member, admin, owner or master. */
        public Builder permission(String v) {
            this.permission = v;
            return this;
        }

        /** The session's channel. */
        public Builder channel(String v) {
            this.channel = v;
            return this;
        }

        /** The model provider. */
        public Builder provider(String v) {
            this.provider = v;
            return this;
        }

        /** The model. */
        public Builder model(String v) {
            this.model = v;
            return this;
        }

        /** The agent. */
        public Builder agentId(String v) {
            this.agentId = v;
            return this;
        }

        /** Any other key, passed through to tools and policy (for example {@code approval_mode}). */
        public Builder put(String key, Object value) {
            this.extra.put(Objects.requireNonNull(key, "key"), value);
            return this;
        }

        /** Every entry of {@code extra} ({@link #put} each). */
        public Builder putAll(Map<String, ?> extra) {
            Objects.requireNonNull(extra, "extra").forEach(this::put);
            return this;
        }

        /** The context. */
        public CallContext build() {
            return new CallContext(this);
        }
    }
}
