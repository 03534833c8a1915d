// The official TypeScript client 2.x pinned to MCP 2026-07-28 (with @modelcontextprotocol/ext-tasks for
// the Tasks extension) against toolbus's MCP server: discover, list, call, progress, an input_required
// round answered by the client's elicitation handler, a task run to completion, a task with a question,
// a task cancelled (the tool's cancel counter is read back), and a tool list change heard on the
// client's subscriptions/listen stream. Used by NodeModernClientTest and McpTwoErasIT.
//
//   node modern-client.mjs stdio COMMAND ARGS...
//   node modern-client.mjs http URL
//
// TOOLS=sample runs the same against `toolbus mcp --sample-tools` (progress, ask_city, sleep as the
// task; no task with a question, no counter: the caller reads the server's log); the default is the
// conformance fixtures of ConformanceServerMain. Prints one JSON object on stdout.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createTaskSessionFromClient, resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client";

const VERSION = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
const [mode, ...rest] = process.argv.slice(2);
const capabilities = { elicitation: { form: {} }, extensions: { [TASKS]: {} } };
const clientInfo = { name: "toolbus-modern-client-test", version: "0.1.0" };

const transport = mode === "http"
  ? new StreamableHTTPClientTransport(new URL(rest[0]))
  : new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: "inherit" });

const toolChanges = [];
const client = new Client(clientInfo, {
  capabilities,
  versionNegotiation: { mode: { pin: VERSION } },
  listChanged: { tools: { onChanged: (error, tools) => toolChanges.push(error ? String(error) : tools.map((t) => t.name)) } },
});
const asked = [];
client.setRequestHandler("elicitation/create", async (req) => {
  asked.push(req.params);
  return { action: "accept", content: ANSWER };
});

// ext-tasks needs a raw request path on a 2026-07-28 connection (it frames the _meta itself): a POST of
// our own over HTTP, the client's own pipe (answers matched by id) over stdio. It takes the JSON-RPC
// result or error unwrapped.
let rawIds = 0;
const unwrap = (m) => (m.error ? { kind: "error", error: m.error } : { kind: "result", result: m.result });
function rawDispatch() {
  if (mode === "http") {
    return async (request) => {
      const message = { jsonrpc: "2.0", id: `raw-${++rawIds}`, method: request.method, params: request.params };
      const headers = {
        "content-type": "application/json", accept: "application/json, text/event-stream",
        "mcp-protocol-version": VERSION, "mcp-method": request.method,
      };
      const name = request.params?.taskId ?? request.params?.name;
      if (name !== undefined) headers["mcp-name"] = String(name);
      const res = await fetch(rest[0], { method: "POST", headers, body: JSON.stringify(message) });
      if (!(res.headers.get("content-type") ?? "").includes("text/event-stream")) return unwrap(await res.json());
      const body = await res.text();
      const messages = body.split("\n").filter((l) => l.startsWith("data:")).map((l) => JSON.parse(l.slice(5)));
      return unwrap(messages.find((m) => m.id === message.id && !m.method));
    };
  }
  const pending = new Map();
  const original = transport.onmessage;
  transport.onmessage = (m, extra) => {
    if (m && m.id !== undefined && !m.method && pending.has(m.id)) {
      pending.get(m.id)(m);
      pending.delete(m.id);
      return;
    }
    original?.(m, extra);
  };
  return async (request) => {
    const id = `raw-${++rawIds}`;
    const answer = new Promise((resolve) => pending.set(id, resolve));
    await transport.send({ jsonrpc: "2.0", id, method: request.method, params: request.params });
    return unwrap(await answer);
  };
}

const SAMPLE = process.env.TOOLS === "sample";
const T = SAMPLE
  ? { progress: ["progress", { steps: 3, ms: 100 }], question: ["ask_city", {}], task: ["sleep", { ms: 1500 }],
      slow: ["sleep", { ms: 60000 }] }
  : { progress: ["test_tool_with_progress", {}], question: ["test_input_required_result_elicitation", {}],
      task: ["slow_compute", { seconds: 1, label: "ts2" }], slow: ["slow_compute", { seconds: 60, label: "cancel-me" }] };
const ANSWER = { name: "Ada", confirm: true, city: "Paris" };

const text = (r) => (r.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
const out = {};
await client.connect(transport);
try {
  out.era = client.getProtocolEra();
  out.tools = (await client.listTools()).tools.map((t) => t.name);
  out.echo = text(await client.callTool({ name: "echo", arguments: { text: "hi" } }));
  const progress = [];
  out.progressText = text(await client.callTool({ name: T.progress[0], arguments: T.progress[1] },
    { onprogress: (p) => progress.push(p) }));
  // the client runs notification handlers after the response's promise resolves: let them run
  await new Promise((r) => setTimeout(r, 100));
  out.progress = progress;
  out.elicited = text(await client.callTool({ name: T.question[0], arguments: T.question[1] }));
  out.asked = asked.map((a) => a.message);

  const session = createTaskSessionFromClient(client, {
    endpointId: "toolbus-test",
    rawDispatch: rawDispatch(),
    v2RequestFraming: { protocolVersion: VERSION, clientInfo, clientCapabilities: capabilities },
    onInputRequest: async (request) => {
      asked.push({ message: request.params?.message, kind: request.kind });
      return { action: "accept", content: { ...ANSWER, name: "Grace" } };
    },
  });
  try {
    const done = await session.callTool(T.task[0], T.task[1]);
    out.taskKind = done.kind;
    const events = [];
    const settled = await done.settle({ onEvent: (e) => events.push(e.type === "task" ? e.task.status : "outcome") });
    out.taskStatuses = events;
    out.taskText = text(resultFromTaskOutcome(settled.outcome));

    if (!SAMPLE) {
      const asking = await session.callTool("confirm_delete", { filename: "notes.txt" });
      out.questionTaskKind = asking.kind;
      out.questionTaskText = text(resultFromTaskOutcome((await asking.settle()).outcome));
    }

    const count = async () => SAMPLE ? 0
      : Number(text(await client.callTool({ name: "slow_compute_cancelled", arguments: {} })));
    const before = await count();
    const slow = await session.callTool(T.slow[0], T.slow[1]);
    out.cancelKind = slow.kind;
    // cancel once the task is seen working (its tool runs by then)
    for (let i = 0; i < 50; i++) {
      const view = await session.task(slow.handle.taskId).snapshot();
      if (view.status === "working") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 200));
    await slow.cancel();
    out.cancelOutcome = (await slow.settle()).outcome.status;
    if (!SAMPLE) {
      let after = before;
      for (let i = 0; i < 50 && after <= before; i++) {
        after = await count();
        if (after <= before) await new Promise((r) => setTimeout(r, 100));
      }
      out.toolCancels = after - before;
    }
  } finally {
    await session.close();
  }

  if (!SAMPLE) {
    out.trigger = text(await client.callTool({ name: "test_trigger_tool_change", arguments: {} }));
    for (let i = 0; i < 50 && toolChanges.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    out.toolChanges = toolChanges;
    await client.callTool({ name: "test_trigger_tool_change", arguments: {} }); // and back
  }
} catch (e) {
  out.error = String(e?.stack ?? e);
} finally {
  process.stdout.write(JSON.stringify(out) + "\n");
  await client.close().catch(() => {});
  process.exit(0);
}
