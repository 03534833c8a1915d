package dev.toolbus.policy;

import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolSource;
import java.util.Set;

/**
 * What the rules look at of one tool: its normalised name and plugin id, its source, whether it
 * counts as a plugin tool, and its groups (declared and configured, lower case).
 */
record Facts(ToolDefinition def, String name, String pluginId, ToolSource source, boolean plugin, Set<String> groups) {
}
