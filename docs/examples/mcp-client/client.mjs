// Calls toolbus's MCP server with the official MCP TypeScript SDK.
//
//   node client.mjs stdio [COMMAND ARGS...]   spawn the server (default: java -cp "$TOOLBUS_CP" dev.toolbus.mcp.server.McpServerMain)
//   node client.mjs http URL                  connect to a running server, e.g. http://127.0.0.1:3001/mcp
//
// It lists the tools, calls echo, add and draw, and prints one JSON object on stdout:
// {"transport", "server", "protocol", "tools": [names], "calls": {name: {isError, text, images, structured}}}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, ...rest] = process.argv.slice(2);

function transportFor(mode, rest) {
  if (mode === "http") {
    if (!rest[0]) throw new Error("http needs a URL");
    return new StreamableHTTPClientTransport(new URL(rest[0]));
  }
  if (mode === "stdio") {
    const [command, ...args] = rest.length > 0
      ? rest
      : [process.env.TOOLBUS_JAVA || "java", "-cp", process.env.TOOLBUS_CP || "", "dev.toolbus.mcp.server.McpServerMain"];
    return new StdioClientTransport({ command, args, stderr: "inherit" });
  }
  throw new Error("usage: node client.mjs stdio [COMMAND ARGS...] | http URL");
}

function summarize(result) {
  const text = result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
  const images = result.content
    .filter((c) => c.type === "image")
    .map((c) => ({ mimeType: c.mimeType, bytes: Buffer.from(c.data, "base64").length }));
  return { isError: result.isError === true, text, images, structured: result.structuredContent ?? null };
}

const client = new Client({ name: "toolbus-example-client", version: "0.1.0" });
const transport = transportFor(mode, rest);
await client.connect(transport);
try {
  const { tools } = await client.listTools();
  const calls = {
    echo: summarize(await client.callTool({ name: "echo", arguments: { text: "hello from node" } })),
    add: summarize(await client.callTool({ name: "add", arguments: { a: 2, b: 40 } })),
    draw: summarize(await client.callTool({ name: "draw", arguments: { color: "blue", size: 8 } })),
    missing: summarize(await client.callTool({ name: "echo", arguments: {} })),
  };
  const out = {
    transport: mode,
    server: client.getServerVersion(),
    protocol: transport.protocolVersion ?? null,
    tools: tools.map((t) => t.name),
    calls,
  };
  process.stdout.write(JSON.stringify(out) + "\n");
} finally {
  await client.close();
}
