/**
 * MCP (Model Context Protocol) in both directions, on the MCP Java SDK ({@code mcp-core} with Jackson 2):
 * what the client ({@link dev.toolbus.mcp.client}) and the server ({@link dev.toolbus.mcp.server}) share.
 *
 * <p>{@link dev.toolbus.mcp.McpResults} translates tool results between MCP and toolbus (an external
 * server's {@code CallToolResult} into a {@code ToolResult}; a turn's events into the
 * {@code CallToolResult} this server answers); {@link dev.toolbus.mcp.McpToolHints} does the same for
 * the tool annotations {@code readOnlyHint} and {@code destructiveHint}; an MCP request that the peer
 * refuses or that cannot reach it fails with {@link dev.toolbus.mcp.McpCallException}. Both sides
 * speak the 2025 revisions through the SDK and the 2026-07-28 revision on their own, with the wire
 * constants of {@code dev.toolbus.mcp.internal}.
 */
package dev.toolbus.mcp;
