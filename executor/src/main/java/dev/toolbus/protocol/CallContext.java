package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import java.util.Map;

/**
 * Who and where a turn comes from, as the bot core sends it in {@code context}. Every field may be
 * empty; unknown keys are kept in {@code extra}.
 *
 * @param userId the user
 * @param groupId the group
 * @param platform the platform (qq, discord, …)
 * @param permission member, admin, owner or master
 * @param channel the session's channel
 * @param provider the model provider
 * @param model the model
 * @param agentId the agent
 * @param extra other keys, passed through
 */
public record CallContext(
        String userId,
        String groupId,
        String platform,
        String permission,
        String channel,
        String provider,
        String model,
        String agentId,
        Map<String, Object> extra) {

    /** The empty context. */
    public static final CallContext EMPTY = new CallContext(null, null, null, null, null, null, null, null, null);

    public CallContext {
        userId = userId == null ? "" : userId;
        groupId = groupId == null ? "" : groupId;
        platform = platform == null ? "" : platform;
        permission = permission == null ? "" : permission;
        channel = channel == null ? "" : channel;
        provider = provider == null ? "" : provider;
        model = model == null ? "" : model;
        agentId = agentId == null ? "" : agentId;
        extra = extra == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(extra));
    }

    @Override
    @JsonAnyGetter
    public Map<String, Object> extra() {
        return extra;
    }

    /** Starts a builder; every field is optional. */
    public static Builder builder() {
        return new Builder();
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
        private final Map<String, Object> extra = new java.util.LinkedHashMap<>();

        private Builder() {
        }

        public Builder userId(String v) {
            this.userId = v;
            return this;
        }

        public Builder groupId(String v) {
            this.groupId = v;
            return this;
        }

        public Builder platform(String v) {
            this.platform = v;
            return this;
        }

        /** member, admin, owner or master. */
        public Builder permission(String v) {
            this.permission = v;
            return this;
        }

        public Builder channel(String v) {
            this.channel = v;
            return this;
        }

        public Builder provider(String v) {
            this.provider = v;
            return this;
        }

        public Builder model(String v) {
            this.model = v;
            return this;
        }

        public Builder agentId(String v) {
            this.agentId = v;
            return this;
        }

        /** Any other key, passed through to tools and policy (for example {@code approval_mode}). */
        public Builder put(String key, Object value) {
            this.extra.put(java.util.Objects.requireNonNull(key, "key"), value);
            return this;
        }

        public CallContext build() {
            return new CallContext(userId, groupId, platform, permission, channel, provider, model, agentId, extra);
        }
    }
}
