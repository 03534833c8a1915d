// Drives the conversation-control side of toolbus's MCP server with the official TypeScript client:
// progress, log messages, elicitation (answered with ACTION), an elicitation left unanswered until it
// expires, a call cancelled with an AbortSignal, and sampling (the client declares `sampling` only
// when ACTION is accept; its "model" echoes the prompt). Used by NodeConversationTest.
//
//   node conversation.mjs ACTION stdio COMMAND ARGS...
//   node conversation.mjs ACTION http URL
//
// ACTION is accept, decline or cancel. Prints one JSON object on stdout.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const [action, mode, ...rest] = process.argv.slice(2);
const transport = mode === "http"
  ? new StreamableHTTPClientTransport(new URL(rest[0]))
  : new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: "inherit" });

const client = new Client({ name: "toolbus-conversation-test", version: "0.1.0" },
  { capabilities: action === "accept" ? { elicitation: {}, sampling: {} } : { elicitation: {} } });
const logs = [];
const asked = [];
let expiredAborted = false;
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params); });
client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
  asked.push({ message: req.params.message, schema: req.params.requestedSchema });
  if (req.params.message === "never answered") {
    // wait until the server withdraws the question
    await new Promise((resolve) => extra.signal.addEventListener("abort", () => { expiredAborted = true; resolve(); }));
    return { action: "cancel" };
  }
  return action === "accept"
    ? { action: "accept", content: { username: "ada", email: "ada@example.org" } }
    : { action };
});

const sampled = [];
if (action === "accept") {
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    sampled.push(req.params);
    const prompt = req.params.messages.map((m) => m.content.text).join(" ");
    return { role: "assistant", content: { type: "text", text: "echo: " + prompt }, model: "echo-1", stopReason: "endTurn" };
  });
}

const text = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");

await client.connect(transport);
const raw = [];
const orig = transport.onmessage;
transport.onmessage = (m, extra) => { raw.push(m.method ?? ("resp " + m.id)); orig(m, extra); };
try {
  const progress = [];
  const withProgress = await client.callTool({ name: "test_tool_with_progress", arguments: {} }, undefined,
    { onprogress: (p) => progress.push(p) });
  const logged = await client.callTool({ name: "test_tool_with_logging", arguments: {} });
  const elicited = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
  const expired = await client.callTool({ name: "test_ask_expires", arguments: {} });
  const sampling = await client.callTool({ name: "test_sampling", arguments: { prompt: "Say hi" } });

  const ac = new AbortController();
  const slow = client.callTool({ name: "test_slow", arguments: {} }, undefined, { signal: ac.signal, timeout: 60000 });
  setTimeout(() => ac.abort("the user said stop"), 500);
  let cancelledError = null;
  try {
    await slow;
  } catch (e) {
    cancelledError = String(e.message ?? e);
  }
  let serverCancels = 0;
  for (let i = 0; i < 50 && serverCancels < 1; i++) {
    serverCancels = Number(text(await client.callTool({ name: "test_cancelled_count", arguments: {} })));
    if (serverCancels < 1) await new Promise((r) => setTimeout(r, 100));
  }
  process.stdout.write(JSON.stringify({
    progress,
    progressText: text(withProgress),
    logs,
    loggedText: text(logged),
    asked,
    elicitedText: text(elicited),
    expiredText: text(expired),
    expiredAborted,
    sampled,
    samplingText: text(sampling),
    samplingIsError: sampling.isError === true,
    cancelledError,
    serverCancels,
    raw,
  }) + "\n");
} finally {
  await client.close();
}
