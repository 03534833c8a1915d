// A 2025-11-25 MCP server on the official TypeScript SDK 1.x over stdio, for toolbus as a client
// (McpLegacyClientTest). It knows no server/discover (it answers -32601 before initialize, as 2025
// servers do), so toolbus falls back to initialize. Tools:
//   ts1_echo {text}  → "ts1: <text>"
//   ts1_ask {}       → elicitation/create to the client, then "Hello, <name>!"
//   ts1_seen {}      → the traceparent of each tools/call that reached it
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const traceparents = [];
const server = new McpServer({ name: "ts1-fixture", version: "1.32.2" });
server.registerTool("ts1_echo", { description: "echoes its text", inputSchema: { text: z.string() } },
  async ({ text }, extra) => {
    if (extra._meta?.traceparent) traceparents.push(extra._meta.traceparent);
    return { content: [{ type: "text", text: "ts1: " + text }] };
  });
server.registerTool("ts1_ask", { description: "asks for a name, then greets", inputSchema: {} }, async () => {
  const r = await server.server.elicitInput({ message: "What is your name?",
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } });
  return { content: [{ type: "text", text: "Hello, " + (r.content?.name ?? r.action) + "!" }] };
});
server.registerTool("ts1_seen", { description: "what reached this server", inputSchema: {} },
  async () => ({ content: [{ type: "text", text: JSON.stringify({ traceparents }) }] }));
await server.connect(new StdioServerTransport());
