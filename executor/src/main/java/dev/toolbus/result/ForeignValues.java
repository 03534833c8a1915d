package dev.toolbus.result;

import dev.toolbus.tool.ToolResult;

/** Maps values returned by foreign tools to results, as MaiBot's host does. Placeholder. */
public final class ForeignValues {

    private ForeignValues() {
    }

    /**
     * Maps a JSON-like value (Map, List, String, Number, Boolean, Jackson node, {@code null}).
     *
     * @param value the value a tool returned
     * @return the result
     */
    public static ToolResult toResult(Object value) {
        return value == null ? ToolResult.empty() : ToolResult.text(String.valueOf(value).strip());
    }
}
