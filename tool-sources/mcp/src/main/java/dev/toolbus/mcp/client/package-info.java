/**
 * The MCP client: external MCP servers as a toolbus tool source.
 *
 * <p>{@link dev.toolbus.mcp.client.McpToolSource} is the entry: it makes the tools of the servers listed
 * in an {@code mcp-servers.json} ({@link dev.toolbus.mcp.client.McpServersFile}, Claude Desktop or ChatAI
 * shape; one {@link dev.toolbus.mcp.client.McpServerConfig} each) into toolbus tools over stdio or
 * streamable HTTP. Clashes get a server prefix, a cancel or the executor's timeout sends
 * {@code notifications/cancelled}, the server's progress and questions reach the call's
 * {@code ToolContext}, and a dead server fails its calls at once and is restarted on the next call.
 * A server of the 2026-07-28 era (configured, or found by the {@code server/discover} probe of
 * {@code protocol: auto}) is spoken to without the SDK: stateless requests with the {@code _meta}
 * envelope, {@code input_required} rounds through the call's questions, tasks polled to their end.
 * A 2025-11-25 server's task-capable tool is called as a task of that revision.
 * Package-private: one server's session ({@code McpConnection}), the stdio transport that owns the
 * server's process ({@code ProcessClientTransport}), the wrapper that sends cancellations and the
 * requests the SDK cannot send ({@code CancellingTransport}), and a 2025-11-25 task call
 * ({@code LegacyTaskCall}, deciding by {@code LegacyTaskSupport}); for the 2026-07-28 era the probe ({@code EraProbe}), the session
 * ({@code ModernSession}) and its wires ({@code ModernChannel}: {@code StdioChannel},
 * {@code HttpChannel}).
 */
package dev.toolbus.mcp.client;
