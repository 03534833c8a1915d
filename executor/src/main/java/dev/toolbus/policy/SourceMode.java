package dev.toolbus.policy;

import java.util.Locale;

/**
 * Which tool sources a session sees, as ChatAI's {@code mode}: {@code hybrid} (all),
 * {@code skills-only} (no MCP tools), {@code mcp-only} (MCP tools only). The built-in
 * {@code tool_search} is exempt from the mode.
 */
public enum SourceMode {
    HYBRID("hybrid"),
    SKILLS_ONLY("skills-only"),
    MCP_ONLY("mcp-only");

    private final String wireName;

    SourceMode(String wireName) {
        this.wireName = wireName;
    }

    /** The config spelling. */
    public String wireName() {
        return wireName;
    }

    /** The mode of that spelling (case-insensitive, {@code _} accepted for {@code -}), or {@code null}. */
    public static SourceMode parse(String value) {
        if (value == null) {
            return null;
        }
        String v = value.strip().toLowerCase(Locale.ROOT).replace('_', '-');
        for (SourceMode m : values()) {
            if (m.wireName.equals(v)) {
                return m;
            }
        }
        return null;
    }
}
