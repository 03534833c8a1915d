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

    private BuiltInTools() {
    }
}
