package dev.toolbus.tool;

/**
 * Whether a tool is offered to the model: {@code VISIBLE} tools are listed, {@code DEFERRED} tools
 * are found through the built-in {@code tool_search}, {@code HIDDEN} tools are neither listed nor
 * callable.
 */
public enum Visibility {
    VISIBLE,
    DEFERRED,
    HIDDEN
}
