// A 2025-11-25 MCP server on the official TypeScript SDK 1.x over stdio that lists many tools, for
// toolbus as a client (McpManyToolsTest): t0 … t<N-1> plus Echo (which clashes, ignoring case, with a
// core tool of the test). Its low-level Server answers tools/list from one prepared list, so the
// server's own cost stays small; each tool answers "many: <name>".
//
//   node many-server.mjs N
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const n = Number(process.argv[2] ?? "60000");
const tools = [];
for (let i = 0; i < n; i++) {
  tools.push({ name: "t" + i, description: "tool t" + i, inputSchema: { type: "object", properties: {} } });
}
tools.push({ name: "Echo", description: "tool Echo", inputSchema: { type: "object", properties: {} } });

const server = new Server({ name: "many-fixture", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [{ type: "text", text: "many: " + request.params.name }],
}));
await server.connect(new StdioServerTransport());
