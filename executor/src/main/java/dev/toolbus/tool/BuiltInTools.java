package dev.toolbus.tool;

/**
 * The names of the tools toolbus itself provides as {@link ToolSource#CORE} tools. The policy treats
 * some of them specially (see {@code docs/policy.md}), so their names live here, below every package
 * that decides about them.
 */
public final class BuiltInTools {

    /**
     * {@code read_tool_result}: reads on in a result that was cut for being too long. Registered by
     * every executor (deferred: not listed); the configured policy lets every session call it.
     */
    public static final String READ_TOOL_RESULT = "read_tool_result";

    /** {@code tool_search}: finds deferred tools (registered where deferred tools are). */
    public static final String TOOL_SEARCH = "tool_search";

    /** {@code load_skill}: loads a skill document (registered where skill folders are configured). */
    public static final String LOAD_SKILL = "load_skill";

    /**
     * The names only toolbus's own ({@link ToolSource#CORE}) tools may take, in lower case: a plugin or
     * MCP tool of one of these names (compared ignoring case) is never registered under it, also where
     * the built-in tool is not registered (no deferred tools, no skills), so a tool source cannot stand
     * in for a tool the policy treats specially.
     */
    public static final java.util.Set<String> RESERVED = java.util.Set.of(READ_TOOL_RESULT, TOOL_SEARCH, LOAD_SKILL);

    private BuiltInTools() {
    }
}
