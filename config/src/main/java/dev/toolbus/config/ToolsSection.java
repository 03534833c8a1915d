package dev.toolbus.config;

import dev.toolbus.policy.PolicyConfig;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Reads the {@code tools} section: allow, alsoAllow, deny, profiles, byProvider, agents and search. */
final class ToolsSection {

    private ToolsSection() {
    }

    private static final Set<String> RULE_KEYS = Set.of("allow", "alsoAllow", "deny", "profile");

    private static PolicyConfig.Rules rules(ConfigLoader.Reader in, Map<String, Object> m, String path, boolean profileAllowed) {
        String profile = null;
        if (m.containsKey("profile")) {
            if (profileAllowed) {
                profile = in.string(m, "profile", path, null);
            } else {
                in.warn(ConfigLoader.Reader.join(path, "profile"), "a profile cannot select another profile; ignored");
            }
        }
        // a written alsoAllow, even [] or left empty, replaces the inherited one; an absent one inherits
        return PolicyConfig.Rules.builder().allow(in.strings(m, "allow", path, List.of()))
                .alsoAllow(in.strings(m, "alsoAllow", path, List.of())).deny(in.strings(m, "deny", path, List.of()))
                .profile(profile).alsoAllowGiven(m.containsKey("alsoAllow")).build();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, PolicyConfig.Rules> rulesMap(ConfigLoader.Reader in, Map<String, Object> parent, String key, String path,
                                                     boolean profileAllowed, boolean lowerKeys) {
        Map<String, Object> m = in.section(parent, key, path, null);
        Map<String, PolicyConfig.Rules> out = new LinkedHashMap<>();
        m.forEach((name, v) -> {
            String p = ConfigLoader.Reader.join(ConfigLoader.Reader.join(path, key), name);
            if (!(v instanceof Map)) {
                (v == null ? (ConfigLoader.Warn) in::warn : (ConfigLoader.Warn) in::fallback).emit(p,
                        (v == null ? "is empty" : "must be a mapping, got " + ConfigLoader.Reader.describe(v)) + "; ignored");
                return;
            }
            Map<String, Object> r = in.keys((Map<String, Object>) v, p, RULE_KEYS);
            String k = lowerKeys ? name.strip().toLowerCase(Locale.ROOT) : name;
            if (out.putIfAbsent(k, rules(in, r, p, profileAllowed)) != null) {
                in.warn(p, "duplicates '" + k + "' (keys are case-insensitive); ignored");
            }
        });
        return out;
    }

    @SuppressWarnings("unchecked")
    static Config.Tools read(ConfigLoader.Reader in, Map<String, Object> root) {
        Map<String, Object> t = in.section(root, "tools", "", Set.of("allow", "alsoAllow", "deny", "profile", "profiles",
                "byProvider", "agents", "search"));
        PolicyConfig.Rules global = rules(in, t, "tools", true);
        Map<String, PolicyConfig.Rules> profiles = rulesMap(in, t, "profiles", "tools", false, false);
        Map<String, PolicyConfig.Rules> byProvider = rulesMap(in, t, "byProvider", "tools", true, true);
        Map<String, Object> a = in.section(t, "agents", "tools", null);
        Map<String, PolicyConfig.AgentRules> agents = new LinkedHashMap<>();
        a.forEach((id, v) -> {
            String p = "tools.agents." + id;
            if (!(v instanceof Map)) {
                (v == null ? (ConfigLoader.Warn) in::warn : (ConfigLoader.Warn) in::fallback).emit(p,
                        (v == null ? "is empty" : "must be a mapping, got " + ConfigLoader.Reader.describe(v)) + "; ignored");
                return;
            }
            Map<String, Object> am = in.keys((Map<String, Object>) v, p,
                    Set.of("allow", "alsoAllow", "deny", "profile", "byProvider"));
            String key = id.strip().toLowerCase(Locale.ROOT);
            if (agents.putIfAbsent(key, new PolicyConfig.AgentRules(rules(in, am, p, true),
                    rulesMap(in, am, "byProvider", p, true, true))) != null) {
                in.fallback(p, "duplicates '" + key + "' (agent ids are case-insensitive); ignored");
            }
        });
        Map<String, Object> s = in.section(t, "search", "tools",
                Set.of("requireDiscovery", "discoveryTtl", "maxStreams", "maxResults"));
        PolicyConfig.Search d = PolicyConfig.Search.DEFAULTS;
        PolicyConfig.Search search = new PolicyConfig.Search(in.bool(s, "requireDiscovery", "tools.search", true),
                Duration.ofMillis(in.integer(s, "discoveryTtl", "tools.search", d.discoveryTtl().toMillis(), 1_000,
                        7L * 24 * 3600 * 1000)),
                (int) in.integer(s, "maxStreams", "tools.search", d.maxStreams(), 1, 10_000_000),
                (int) in.integer(s, "maxResults", "tools.search", d.maxResults(), 1, 50));
        return new Config.Tools(global.allow(), global.alsoAllow(), global.deny(), global.profile(), profiles,
                byProvider, agents, search);
    }
}
