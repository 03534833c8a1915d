// A 2026-07-28-only MCP server on the official TypeScript SDK 2.x (serveStdio / createMcpHandler with
// legacy: 'reject'), for toolbus as a client (McpModernClientTest). Tools:
//   ts_echo {text}          → "ts2: <text>"
//   ts_ask {}               → an input_required round (inputRequired.elicit, key user_name), then "Hello, <name>!"
//   ts_task {seconds, ask}  → a Tasks-extension task (the SDK has no tasks runtime: this file answers the
//                             tool and tasks/get|update|cancel itself, in front of the SDK): working, with
//                             ask an input_required question answered by tasks/update, then completed
//   ts_seen {}              → what reached this server: each tools/call's traceparent, the tasks cancelled
//
//   node ts2-server.mjs stdio
//   node ts2-server.mjs http PORTFILE
import fs from "node:fs";
import http from "node:http";
import { McpServer, createMcpHandler, fromJsonSchema, inputRequired } from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";

const [mode, portFile] = process.argv.slice(2);
const seen = { traceparents: [], cancelled: [], updates: [] };
const tasks = new Map();
let taskSeq = 0;
const now = () => new Date().toISOString();

function factory() {
  const server = new McpServer({ name: "ts2-fixture", version: "2.4.0" },
    { capabilities: { tools: {}, extensions: { "io.modelcontextprotocol/tasks": {} } } });
  server.registerTool("ts_echo", {
    description: "echoes its text",
    inputSchema: fromJsonSchema({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
  }, async ({ text }) => ({ content: [{ type: "text", text: "ts2: " + text }] }));
  server.registerTool("ts_ask", {
    description: "asks for a name, then greets",
    inputSchema: fromJsonSchema({ type: "object", properties: {} }),
  }, async (args, ctx) => {
    const answer = ctx.mcpReq.inputResponses?.user_name;
    if (!answer) {
      return inputRequired({
        inputRequests: {
          user_name: inputRequired.elicit({ message: "What is your name?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }),
        },
        requestState: "ask-1",
      });
    }
    return { content: [{ type: "text", text: "Hello, " + (answer.content?.name ?? answer.action) + "!" }] };
  });
  server.registerTool("ts_task", {
    description: "works as a task for `seconds`, asking first when `ask`",
    inputSchema: fromJsonSchema({ type: "object", properties: { seconds: { type: "number" }, ask: { type: "boolean" } } }),
  }, async () => ({ content: [{ type: "text", text: "answered by the task layer" }] }));
  server.registerTool("ts_seen", {
    description: "what reached this server",
    inputSchema: fromJsonSchema({ type: "object", properties: {} }),
  }, async () => ({ content: [{ type: "text", text: JSON.stringify(seen) }] }));
  return server;
}

// ------------------------------------------------------------------ the Tasks extension, by hand

function view(t, detailed) {
  const v = { taskId: t.id, status: t.status, createdAt: t.createdAt, lastUpdatedAt: t.updatedAt, ttlMs: 600000,
    pollIntervalMs: 100 };
  if (t.statusMessage) v.statusMessage = t.statusMessage;
  if (detailed && t.status === "input_required") v.inputRequests = t.inputRequests;
  if (detailed && t.status === "completed") v.result = t.result;
  return v;
}

function finishLater(t, ms) {
  t.timer = setTimeout(() => {
    if (t.status !== "working") return;
    t.status = "completed";
    t.updatedAt = now();
    t.result = { resultType: "complete", content: [{ type: "text", text: "ts2 task done" + (t.answer ? ": " + t.answer : "") }] };
  }, ms);
}

const meta = { "io.modelcontextprotocol/serverInfo": { name: "ts2-fixture", version: "2.4.0" } };

/** A response of the task layer to a request, or undefined when the SDK serves it. */
function taskLayer(m) {
  if (!m || m.method === undefined || m.id === undefined) return undefined;
  if (m.method === "tools/call") {
    const tp = m.params?._meta?.traceparent;
    if (tp) seen.traceparents.push(tp);
    if (m.params?.name !== "ts_task") return undefined;
    const args = m.params.arguments ?? {};
    const t = { id: "task-" + (++taskSeq), status: "working", createdAt: now(), updatedAt: now(),
      statusMessage: "started" };
    tasks.set(t.id, t);
    const ms = Math.round((args.seconds ?? 1) * 1000);
    if (args.ask) {
      t.status = "input_required";
      t.inputRequests = { confirm: { method: "elicitation/create", params: { mode: "form", message: "Go on?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } } } };
      t.pendingMs = ms;
    } else {
      finishLater(t, ms);
    }
    return { jsonrpc: "2.0", id: m.id, result: { resultType: "task", ...view(t, false), _meta: meta } };
  }
  if (!m.method.startsWith("tasks/")) return undefined;
  const t = tasks.get(m.params?.taskId);
  if (!t) return { jsonrpc: "2.0", id: m.id, error: { code: -32602, message: "unknown task" } };
  if (m.method === "tasks/get") {
    return { jsonrpc: "2.0", id: m.id, result: { resultType: "complete", ...view(t, true), _meta: meta } };
  }
  if (m.method === "tasks/update") {
    const answer = m.params?.inputResponses?.confirm;
    seen.updates.push(m.params?.inputResponses ?? null);
    if (answer && t.status === "input_required") {
      t.answer = answer.content?.name ?? answer.action;
      t.status = "working";
      t.statusMessage = "answered";
      t.updatedAt = now();
      delete t.inputRequests;
      finishLater(t, t.pendingMs);
    }
    return { jsonrpc: "2.0", id: m.id, result: { resultType: "complete", _meta: meta } };
  }
  if (m.method === "tasks/cancel") {
    if (t.status === "working" || t.status === "input_required") {
      clearTimeout(t.timer);
      t.status = "cancelled";
      t.updatedAt = now();
      seen.cancelled.push(t.id);
    }
    return { jsonrpc: "2.0", id: m.id, result: { resultType: "complete", _meta: meta } };
  }
  return { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } };
}

if (mode === "http") {
  const handler = createMcpHandler(factory, { legacy: "reject" });
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    let parsed;
    try { parsed = JSON.parse(body.toString("utf8")); } catch { parsed = undefined; }
    const answer = req.method === "POST" ? taskLayer(parsed) : undefined;
    if (answer) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer));
      return;
    }
    const response = await handler.fetch(new Request("http://127.0.0.1" + req.url,
      { method: req.method, headers: req.headers, body: req.method === "POST" ? body : undefined }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) for await (const c of response.body) res.write(c);
    res.end();
  });
  server.listen(0, "127.0.0.1", () => fs.writeFileSync(portFile, String(server.address().port)));
} else {
  // the SDK's stdio transport, with the task layer in front of it
  const inner = new StdioServerTransport();
  const transport = {
    async start() {
      inner.onmessage = (m, extra) => {
        const answer = taskLayer(m);
        if (answer) inner.send(answer);
        else transport.onmessage?.(m, extra);
      };
      inner.onclose = () => transport.onclose?.();
      inner.onerror = (e) => transport.onerror?.(e);
      await inner.start();
    },
    send: (m, o) => inner.send(m, o),
    close: () => inner.close(),
  };
  serveStdio(factory, { legacy: "reject", transport });
}
