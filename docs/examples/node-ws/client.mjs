// A small client of the toolbus gateway WebSocket endpoint.
//
//   npm install
//   node client.mjs --url ws://127.0.0.1:8377/v1/ws --token "$TOOLBUS_TOKEN" \
//        --tool echo --args '{"text":"hello from node"}'
//
// It asks which tools the session may see (list_tools), sends one turn with two calls of --tool
// (the second in the OpenAI tool_calls shape), prints every event it receives as one JSON line on
// stdout, and exits 0 once the turn is completed and the tools answer has arrived. It exits 1 on an
// `error` event, an early close or a timeout, and 2 on bad usage.
import WebSocket from 'ws';

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const url = option('url', process.env.TOOLBUS_URL ?? 'ws://127.0.0.1:8377/v1/ws');
const token = option('token', process.env.TOOLBUS_TOKEN ?? '');
const tool = option('tool', 'echo');
const streamId = option('stream', `node-${process.pid}`);
const timeoutMs = Number(option('timeout', '10000'));
let args;
try {
  args = JSON.parse(option('args', '{"text":"hello from node"}'));
} catch (e) {
  console.error(`--args is not JSON: ${e.message}`);
  process.exit(2);
}

const turnId = `turn-${Date.now()}`;
const headers = token ? { Authorization: `Bearer ${token}` } : {};
const ws = new WebSocket(url, { headers });
let turnDone = false;
let toolsDone = false;
let failed = false;

const timer = setTimeout(() => {
  console.error(`no answer within ${timeoutMs} ms`);
  failed = true;
  ws.terminate();
}, timeoutMs);

ws.on('unexpected-response', (req, res) => {
  console.error(`handshake refused: HTTP ${res.statusCode}`);
  failed = true;
  clearTimeout(timer);
  ws.terminate();
});

ws.on('open', () => {
  ws.send(JSON.stringify({ type: 'list_tools', stream_id: streamId, request_id: 'tools-1', format: 'openai' }));
  ws.send(JSON.stringify({
    type: 'tool_calls',
    stream_id: streamId,
    turn_id: turnId,
    context: { user_id: 'node-user', platform: 'node' },
    calls: [
      { tool_call_id: 'n1', name: tool, arguments: args },
      // the OpenAI Chat Completions shape is accepted as is, arguments as a JSON string
      { id: 'n2', type: 'function', function: { name: tool, arguments: JSON.stringify(args) } },
    ],
  }));
});

ws.on('message', (data) => {
  const line = data.toString('utf8');
  console.log(line);
  const event = JSON.parse(line);
  if (event.type === 'error') {
    failed = true;
  } else if (event.type === 'tools') {
    toolsDone = true;
  } else if (event.type === 'turn_completed' && event.turn_id === turnId) {
    turnDone = true;
  }
  if (failed || (turnDone && toolsDone)) {
    clearTimeout(timer);
    ws.close(1000, 'done');
  }
});

ws.on('error', (err) => {
  console.error(`websocket error: ${err.message}`);
  failed = true;
});

ws.on('close', (code, reason) => {
  clearTimeout(timer);
  if (!(turnDone && toolsDone) && !failed) {
    console.error(`closed early: ${code} ${reason}`);
    failed = true;
  }
  process.exitCode = failed ? 1 : 0;
});
