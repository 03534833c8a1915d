// Example toolbus stdio plugin in Node.js, no npm packages: one JSON request per line on stdin,
// one JSON answer per line on stdout, logs on stderr. Calls are async, so stdin keeps being read
// while one runs: a "cancel" aborts it, a "reply" settles a "send" or "ask" it made.
import readline from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

const tools = [
  {
    name: 'node_echo',
    description: 'Echo the given text back.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'Text to echo' } },
      required: ['text'],
    },
  },
  {
    name: 'node_upper',
    description: 'Upper-case the given text.',
    parameters: [{ name: 'text', type: 'string', description: 'Text', required: true }],
  },
  {
    // talks to the chat while it runs: progress, a message, a question; stops on cancel
    name: 'node_countdown',
    description: 'Count down, reporting progress; optionally ask for a city first.',
    risk: 'low',
    inputSchema: {
      type: 'object',
      properties: { seconds: { type: 'integer', minimum: 0 }, ask: { type: 'boolean' } },
      required: ['seconds'],
    },
  },
];

const running = new Map(); // execute_tool id -> AbortController
const replies = new Map(); // rid -> resolve
let nextRid = 1;

function write(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

// send or ask: write the message, resolve with the host's reply of the same rid
function hostRequest(callId, method, params) {
  const rid = 'r' + nextRid++;
  return new Promise((resolve) => {
    replies.set(rid, resolve);
    write({ method, params: { ...params, id: callId, rid } });
  });
}

async function countdown(callId, args, signal) {
  let city = null;
  if (args.ask) {
    const reply = await hostRequest(callId, 'ask', {
      message: 'Which city?',
      timeoutMs: 60000,
      schema: { type: 'object', properties: { city: { type: 'string' } } },
    });
    if (!reply.ok || reply.action !== 'accept') return { result: `no city given (${reply.action ?? reply.error})` };
    city = reply.content.city;
  }
  const total = args.seconds;
  for (let i = 0; i < total; i++) {
    write({ method: 'progress', params: { id: callId, progress: i, total, message: `${total - i} left` } });
    try {
      await sleep(1000, null, { signal }); // a cancel for this call aborts the wait at once
    } catch {
      return { result: 'cancelled' };
    }
  }
  await hostRequest(callId, 'send', { content: [{ type: 'text', text: 'Countdown over!' }] });
  return { result: `counted ${total}${city ? ' for ' + city : ''}` };
}

function answer(request, fields) {
  if (request.id !== undefined) fields.id = request.id; // the host matches answers by id
  write(fields);
}

async function execute(name, args, callId, signal) {
  switch (name) {
    case 'node_echo': return { result: String(args.text ?? '') };
    case 'node_upper': return { result: String(args.text ?? '').toUpperCase() };
    case 'node_countdown': return countdown(callId, args, signal);
    default: return { error: 'unknown tool: ' + name };
  }
}

async function runCall(request, params) {
  const abort = new AbortController();
  running.set(request.id, abort);
  try {
    const args = JSON.parse(params.input || '{}'); // the arguments arrive as a JSON string
    answer(request, await execute(params.toolName, args, request.id, abort.signal));
  } catch (e) {
    answer(request, { error: String(e) });
  } finally {
    running.delete(request.id);
  }
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  const params = request.params || {};
  switch (request.method) {
    case 'activate':
      console.error('node-echo activated as ' + params.pluginId);
      answer(request, { tools });
      break;
    case 'execute_tool':
      runCall(request, params);
      break;
    case 'cancel': // stop that call; its answer (any) is discarded
      running.get(params.id)?.abort();
      break;
    case 'reply': { // the host's answer to a send or an ask
      const resolve = replies.get(params.rid);
      replies.delete(params.rid);
      resolve?.(params);
      break;
    }
    case 'deactivate':
      answer(request, {});
      rl.close();
      break;
    default:
      answer(request, { error: 'unknown method: ' + request.method });
  }
});
rl.on('close', () => process.exit(0));
