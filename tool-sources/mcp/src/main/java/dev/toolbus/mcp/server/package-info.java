/**
 * The MCP server: a toolbus executor's tools served to MCP clients.
 *
 * <p>{@link dev.toolbus.mcp.server.McpToolServer} is the entry: every {@code tools/call} runs through the
 * executor, over stdio or streamable HTTP on reactor-netty ({@link dev.toolbus.mcp.server.McpHttpServer}
 * is a running endpoint), with the call's progress, messages and questions sent to the client; its tools
 * reach the client's model through {@link dev.toolbus.mcp.server.McpSampling}.
 * {@link dev.toolbus.mcp.server.McpServerMain} runs one over the
 * {@link dev.toolbus.mcp.server.McpDemoTools demo tools}. Package-private: the two transports
 * ({@code StdioServerTransport}, {@code NettyHttpServerTransport} with {@code StreamedResponse} and
 * {@code ListChangedStreams}), the JSON-RPC routing with cancellation ({@code RpcDispatcher}), what the
 * server knows of each client session ({@code SessionState}, {@code SessionOutbox},
 * {@code SessionBroadcast}) and one call's live events ({@code LiveEvents}). The 2026-07-28 era:
 * {@code ModernDispatcher} (the methods), {@code ModernHttp} and {@code HeaderRules} (the stateless
 * HTTP side), {@code RequestMeta} and {@code ClientCaps} (a request's {@code _meta}),
 * {@code ModernCalls} and {@code ModernCall} (calls, parked calls and tasks),
 * {@code RequestStateCodec}, {@code Subscriptions} (listen streams); the 2025-11-25 tasks
 * ({@code LegacyTasks}); tasks are kept in an {@link dev.toolbus.mcp.server.McpTaskStore}
 * ({@link dev.toolbus.mcp.server.McpTask}; in memory: {@code InMemoryTaskStore}). The HTTP endpoint's
 * bounds: {@code HttpConnections} (header deadline, eviction at the cap), {@code ClientKeys} (who a
 * client is), {@code InitializeBuckets}.
 */
package dev.toolbus.mcp.server;
