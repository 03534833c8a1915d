package dev.toolbus.policy;

import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolSource;
import java.util.Set;

/**
 * What the rules look at of one tool: its normalised name and plugin id, its source, whether it
 * counts as a plugin tool, its groups (declared and configured, lower case), and the other names it
 * answers to in policy lists ({@code aliases}: its source's original name and
 * {@code <pluginId>:<original name>}, so renaming a tool on a clash never takes it out of a rule).
 */
record Facts(ToolDefinition def, String name, String pluginId, ToolSource source, boolean plugin, Set<String> groups,
             Set<String> aliases) {

    /** The aliases of a definition, normalised: its original name and {@code <pluginId>:<name as its source gave it>}. */
    static Set<String> aliasesOf(ToolDefinition def, String normPluginId) {
        String original = def.originalName() == null ? null : Pattern.norm(def.originalName());
        if (original == null && normPluginId == null) {
            return Set.of();
        }
        java.util.LinkedHashSet<String> out = new java.util.LinkedHashSet<>(4);
        if (original != null) {
            out.add(original);
        }
        if (normPluginId != null) {
            out.add(normPluginId + ":" + (original != null ? original : Pattern.norm(def.name())));
        }
        return out;
    }

    /** Whether {@code text} (normalised) is the tool's name or one of its aliases (for lists that restrict). */
    boolean isNamed(String text) {
        return text.equals(name) || aliases.contains(text);
    }

    /**
     * Whether {@code text} names this tool in a list that grants: its name or {@code <pluginId>:<tool>},
     * not the bare original name (which belongs to the tool that kept it).
     */
    boolean isGranted(String text) {
        return text.equals(name) || text.indexOf(':') >= 0 && aliases.contains(text);
    }
}
