package dev.toolbus.config;

import dev.toolbus.policy.PolicyConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reads the {@code groups} section: named tool groups with an optional required permission. */
final class GroupsSection {

    private GroupsSection() {
    }

    @SuppressWarnings("unchecked")
    static List<PolicyConfig.Group> read(ConfigLoader.Reader in, Map<String, Object> root) {
        if (!root.containsKey("groups")) {
            return List.of();
        }
        Object v = root.get("groups");
        if (!(v instanceof List<?> list)) {
            (v == null ? (ConfigLoader.Warn) in::warn : (ConfigLoader.Warn) in::fallback).emit("groups",
                    (v == null ? "is empty" : "must be a list, got " + ConfigLoader.Reader.describe(v)) + "; no groups");
            return List.of();
        }
        List<PolicyConfig.Group> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String p = "groups[" + i + "]";
            if (!(list.get(i) instanceof Map)) {
                in.fallback(p, "must be a mapping, got " + ConfigLoader.Reader.describe(list.get(i)) + "; skipped");
                continue;
            }
            Map<String, Object> g = in.keys((Map<String, Object>) list.get(i), p,
                    Set.of("index", "name", "description", "tools", "enabled", "requiredPermission"));
            String name = in.string(g, "name", p, null);
            if (name == null || name.isBlank()) {
                name = "#" + i;
                in.warn(p, "has no name; called '" + name + "' (group:" + name + " cannot be referenced)");
            }
            if (g.containsKey("index")) {
                in.integer(g, "index", p, 0, Long.MIN_VALUE / 2, Long.MAX_VALUE / 2);
            }
            List<String> tools = in.strings(g, "tools", p, List.of());
            String req = in.string(g, "requiredPermission", p, null);
            out.add(new PolicyConfig.Group(name, in.string(g, "description", p, ""), tools,
                    in.bool(g, "enabled", p, true), req));
        }
        return out;
    }
}
