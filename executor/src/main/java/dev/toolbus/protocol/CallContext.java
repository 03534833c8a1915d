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
}
