package dev.toolbus.server;

import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** The session context of {@code call} and {@code tools}: who asks, where, through which model. */
final class ContextOptions {

    @Option(names = "--user", paramLabel = "ID", description = "context.user_id")
    String user;

    @Option(names = "--group-id", paramLabel = "ID", description = "context.group_id (a chat group, not a consumer group)")
    String groupId;

    @Option(names = "--platform", paramLabel = "NAME", description = "context.platform")
    String platform;

    @Option(names = "--permission", paramLabel = "LEVEL",
            description = "context.permission: member, admin, owner or master (missing reads as member)")
    String permission;

    @Option(names = "--channel", paramLabel = "NAME", description = "context.channel (channel-scoped tools)")
    String channel;

    @Option(names = "--provider", paramLabel = "NAME", description = "context.provider (byProvider rules)")
    String provider;

    @Option(names = "--model", paramLabel = "ID", description = "context.model (byProvider rules)")
    String model;

    @Option(names = "--agent", paramLabel = "ID", description = "context.agent_id (per-agent rules)")
    String agent;

    /** The wire names and values of the fields that were given, in protocol order. */
    Map<String, String> fields() {
        Map<String, String> m = new LinkedHashMap<>();
        put(m, "user_id", user);
        put(m, "group_id", groupId);
        put(m, "platform", platform);
        put(m, "permission", permission);
        put(m, "channel", channel);
        put(m, "provider", provider);
        put(m, "model", model);
        put(m, "agent_id", agent);
        return m;
    }

    private static void put(Map<String, String> m, String key, String value) {
        if (value != null) {
            m.put(key, value);
        }
    }
}
