/**
 * MCP (Model Context Protocol) in both directions, on the MCP Java SDK ({@code mcp-core} with Jackson 2).
 *
 * <p>{@link dev.toolbus.mcp.McpToolSource} makes the tools of external MCP servers, listed in an
 * {@code mcp-servers.json} ({@link dev.toolbus.mcp.McpServersFile}, Claude Desktop or ChatAI shape),
 * into toolbus tools over stdio or streamable HTTP: clashes get a server prefix, a cancel or the
 * executor's timeout sends {@code notifications/cancelled}, the server's progress and questions reach
 * the call's {@code ToolContext}, a dead server fails its calls at once and is restarted on the next
 * call. {@link dev.toolbus.mcp.McpToolServer} serves an executor's tools to MCP clients over stdio
 * and streamable HTTP on reactor-netty ({@link dev.toolbus.mcp.McpHttpServer}), every call run through
 * the executor, with the calls' progress, messages and questions sent to the client.
 * {@link dev.toolbus.mcp.McpServerMain} runs one over the
 * {@link dev.toolbus.mcp.SampleTools sample tools}.
 */
package dev.toolbus.mcp;
