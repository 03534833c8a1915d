package dev.toolbus.tool;

/** Where a tool comes from; decides who wins a name clash (core first, then first registered). */
public enum ToolSource {
    /** Built into the host or the embedding service: wins every clash. */
    CORE,
    /** A Java plugin object or function registered by the embedder. */
    PLUGIN,
    /** An out-of-process stdio plugin. */
    STDIO,
    /** A tool of an external MCP server. */
    MCP
}
