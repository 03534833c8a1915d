// The official TypeScript client 1.x (@modelcontextprotocol/sdk, MCP 2025-11-25) against toolbus's MCP
// server: list, call, progress, a question answered by its elicitation handler, and the revision's
// tasks through client.experimental.tasks.callToolStream: a task run to completion, a task whose
// question reaches the client on tasks/result, and a task cancelled (the tool's cancel counter is read
// back). Used by NodeLegacyTasksTest and McpTwoErasIT.
//
//   node legacy-tasks.mjs stdio COMMAND ARGS...
//   node legacy-tasks.mjs http URL
//
// TOOLS=sample runs the same against `toolbus mcp --sample-tools` (as modern-client.mjs does).
// Prints one JSON object on stdout.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [mode, ...rest] = process.argv.slice(2);
const transport = mode === "http"
  ? new StreamableHTTPClientTransport(new URL(rest[0]))
  : new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: "inherit" });
const client = new Client({ name: "toolbus-legacy-tasks-test", version: "0.1.0" }, { capabilities: { elicitation: {} } });
const asked = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  asked.push({ message: req.params.message, relatedTask: req.params._meta?.["io.modelcontextprotocol/related-task"]?.taskId ?? null });
  return { action: "accept", content: { name: "Ada", confirm: true, city: "Paris" } };
});
const SAMPLE = process.env.TOOLS === "sample";
const T = SAMPLE
  ? { progress: ["progress", { steps: 3, ms: 100 }], question: ["ask_city", {}], task: ["sleep", { ms: 1500 }],
      slow: ["sleep", { ms: 60000 }] }
  : { progress: ["test_tool_with_progress", {}], question: ["test_input_required_result_elicitation", {}],
      task: ["slow_compute", { seconds: 1, label: "ts1" }], slow: ["slow_compute", { seconds: 60, label: "cancel-me" }] };
const text = (r) => (r?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

// onWorking runs once, at the first status polled after the task was created (its tool is running then)
async function stream(name, args, onWorking) {
  const seen = { statuses: [] };
  for await (const m of client.experimental.tasks.callToolStream({ name, arguments: args })) {
    if (m.type === "taskCreated") {
      seen.taskId = m.task.taskId;
      seen.statuses.push(m.task.status);
    } else if (m.type === "taskStatus") {
      seen.statuses.push(m.task.status);
      if (onWorking && m.task.status === "working") {
        const once = onWorking;
        onWorking = null;
        await once(m.task);
      }
    } else if (m.type === "result") {
      seen.text = text(m.result);
    } else if (m.type === "error") {
      seen.error = String(m.error?.message ?? m.error);
    }
  }
  return seen;
}

const out = {};
await client.connect(transport);
try {
  out.protocolVersion = transport.protocolVersion ?? null;
  const tools = (await client.listTools()).tools;
  out.tools = tools.map((t) => t.name);
  out.taskSupport = Object.fromEntries(tools.filter((t) => t.execution).map((t) => [t.name, t.execution.taskSupport]));
  out.echo = text(await client.callTool({ name: "echo", arguments: { text: "hi" } }));
  const progress = [];
  out.progressText = text(await client.callTool({ name: T.progress[0], arguments: T.progress[1] }, undefined,
    { onprogress: (p) => progress.push(p) }));
  // the client runs notification handlers after the response's promise resolves: let them run
  await new Promise((r) => setTimeout(r, 100));
  out.progress = progress;
  out.elicited = text(await client.callTool({ name: T.question[0], arguments: T.question[1] }));

  out.task = await stream(T.task[0], T.task[1]);
  if (!SAMPLE) out.questionTask = await stream("confirm_delete", { filename: "notes.txt" });

  const count = async () => SAMPLE ? 0
    : Number(text(await client.callTool({ name: "slow_compute_cancelled", arguments: {} })));
  const before = await count();
  out.cancelled = await stream(T.slow[0], T.slow[1], async (task) => {
    out.cancelAnswer = (await client.experimental.tasks.cancelTask(task.taskId)).status;
  });
  if (!SAMPLE) {
    let after = before;
    for (let i = 0; i < 50 && after <= before; i++) {
      after = await count();
      if (after <= before) await new Promise((r) => setTimeout(r, 100));
    }
    out.toolCancels = after - before;
  }
  out.asked = asked;
} catch (e) {
  out.error = String(e?.stack ?? e);
} finally {
  process.stdout.write(JSON.stringify(out) + "\n");
  await client.close().catch(() => {});
  process.exit(0);
}
