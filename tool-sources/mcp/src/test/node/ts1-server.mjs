// A 2025-11-25 MCP server on the official TypeScript SDK 1.x, for toolbus as a client
// (McpLegacyClientTest). It knows no server/discover (it answers -32601 before initialize over stdio,
// 400 without a session over HTTP, as 2025 servers do), so toolbus falls back to initialize. It
// declares the revision's tasks for tools/call (capabilities.tasks.requests.tools.call) with the SDK's
// in-memory task store and message queue. Tools:
//   ts1_echo {text}          → "ts1: <text>"
//   ts1_ask {}               → elicitation/create to the client, then "Hello, <name>!"
//   ts1_task {seconds, ask}  → execution.taskSupport "optional", registered with registerToolTask: a task
//                              that sets status messages ("started", "half way"), with ask first asks
//                              "Who asks?" (elicitation/create tied to the task by related-task, which
//                              the SDK queues for tasks/result), works for `seconds` while watching its
//                              store for a cancel, then completes with "ts1 task done[: <name>]"
//   ts1_task_required {…}    → the same with taskSupport "required" (the SDK refuses a plain call of it)
//   ts1_seen {}              → what reached this server: each tools/call's traceparent, the task
//                              parameters of task calls, the ids of the tasks created, the tasks/*
//                              requests, the answers the tasks got, the tasks whose tool saw a cancel
//
//   node ts1-server.mjs            (stdio)
//   node ts1-server.mjs http PORTFILE
import fs from "node:fs";
import http from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { InMemoryTaskStore, InMemoryTaskMessageQueue } from "@modelcontextprotocol/sdk/experimental/tasks";
import { z } from "zod";

const [mode, portFile] = process.argv.slice(2);
const traceparents = [];
const seen = { taskCalls: [], created: [], taskRequests: [], answers: [], cancelled: [] };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function factory() {
  const server = new McpServer({ name: "ts1-fixture", version: "1.32.2" }, {
    capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    taskStore: new InMemoryTaskStore(),
    taskMessageQueue: new InMemoryTaskMessageQueue(),
  });
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
  const taskHandler = {
    async createTask({ seconds, ask }, { taskStore, taskRequestedTtl }) {
      const task = await taskStore.createTask({ ttl: taskRequestedTtl, pollInterval: 100 });
      const id = task.taskId;
      seen.created.push(id);
      const cancelled = async () => (await taskStore.getTask(id))?.status === "cancelled";
      (async () => {
        let answer = null;
        try {
          await taskStore.updateTaskStatus(id, "working", "started");
          if (ask) {
            await taskStore.updateTaskStatus(id, "input_required", "waiting for a name");
            const r = await server.server.elicitInput({ mode: "form", message: "Who asks?",
              requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
            { relatedTask: { taskId: id }, timeout: 600000 });
            answer = r.content?.name ?? r.action;
            seen.answers.push({ taskId: id, answer });
            await taskStore.updateTaskStatus(id, "working", "answered");
          }
          const ms = Math.round((seconds ?? 0.5) * 1000);
          const start = Date.now();
          let half = false;
          while (Date.now() - start < ms) {
            await sleep(25);
            if (await cancelled()) {
              seen.cancelled.push(id);
              return;
            }
            if (!half && Date.now() - start >= ms / 2) {
              half = true;
              await taskStore.updateTaskStatus(id, "working", "half way");
            }
          }
          await taskStore.storeTaskResult(id, "completed", { content: [{ type: "text",
            text: "ts1 task done" + (answer ? ": " + answer : "") }] });
        } catch (e) {
          if (await cancelled()) seen.cancelled.push(id);
          else await taskStore.storeTaskResult(id, "failed", { isError: true,
            content: [{ type: "text", text: String(e?.message ?? e) }] }).catch(() => {});
        }
      })();
      return { task };
    },
    getTask: async (_args, { taskId, taskStore }) => taskStore.getTask(taskId),
    getTaskResult: async (_args, { taskId, taskStore }) => taskStore.getTaskResult(taskId),
  };
  const taskInput = { seconds: z.number().optional(), ask: z.boolean().optional() };
  server.experimental.tasks.registerToolTask("ts1_task", { description: "works as a task for `seconds`, asking a"
    + " name first when `ask`", inputSchema: taskInput, execution: { taskSupport: "optional" } }, taskHandler);
  server.experimental.tasks.registerToolTask("ts1_task_required", { description: "ts1_task, as a task only",
    inputSchema: taskInput, execution: { taskSupport: "required" } }, taskHandler);
  server.registerTool("ts1_seen", { description: "what reached this server", inputSchema: {} },
    async () => ({ content: [{ type: "text", text: JSON.stringify({ traceparents, ...seen }) }] }));
  return server;
}

/** Records the task parameter of tools/call and the tasks/* requests, then hands the message on. */
function tap(transport) {
  const next = transport.onmessage;
  transport.onmessage = (m, extra) => {
    if (m?.method === "tools/call" && m.params?.task) {
      seen.taskCalls.push({ name: m.params.name, task: m.params.task });
    } else if (typeof m?.method === "string" && m.method.startsWith("tasks/")) {
      seen.taskRequests.push({ method: m.method, taskId: m.params?.taskId ?? null });
    }
    next?.(m, extra);
  };
}

if (mode === "http") {
  const sessions = new Map();
  const httpServer = http.createServer(async (req, res) => {
    const sid = req.headers["mcp-session-id"];
    let transport = sid ? sessions.get(sid) : undefined;
    if (!transport) {
      if (sid) {
        res.writeHead(404).end();
        return;
      }
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport) });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await factory().connect(transport);
      tap(transport);
    }
    await transport.handleRequest(req, res);
  });
  httpServer.listen(0, "127.0.0.1", () => fs.writeFileSync(portFile, String(httpServer.address().port)));
} else {
  const transport = new StdioServerTransport();
  await factory().connect(transport);
  tap(transport);
}
