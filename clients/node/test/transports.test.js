import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthenticationError, Client } from '../src/index.js';
import { TOKEN, checkAnthropic, checkGemini, checkOpenAI, checkOpenAIResponses, removeConfig, serverCommand, startBrokerServer, startServer, until, writeConfig } from './support.js';

// in CI every transport must be tested, never skipped
const REQUIRE_ALL = process.env.TOOLBUS_REQUIRE_ALL_TRANSPORTS === '1';

const THREE_CALLS = [
  { id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a": 2, "b": 40}' } },
  { id: 'c2', type: 'function', function: { name: 'draw', arguments: '{"label": "a cat"}' } },
  { id: 'c3', type: 'function', function: { name: 'echo', arguments: '{"text": "hi"}' } },
];

function checkTurn(turn) {
  assert.deepEqual(turn.results.map((r) => r.tool_call_id), ['c1', 'c2', 'c3']);
  assert.ok(turn.results.every((r) => !r.is_error));
  assert.deepEqual(turn.results[0].data, { sum: 42 });
  assert.equal(turn.media.length, 1);
  assert.equal(turn.media[0].message_id, 'tool_result:c2:1');
  assert.deepEqual(turn.completed.tool_call_ids, ['c1', 'c2', 'c3']);
  const openai = turn.toOpenAI();
  checkOpenAI(openai, ['c1', 'c2', 'c3']);
  assert.deepEqual(openai.map((m) => m.role), ['tool', 'tool', 'tool', 'user']);
  assert.equal(openai[3].content[1].type, 'image_url');
  checkAnthropic(turn.toAnthropic(), ['c1', 'c2', 'c3']);
  assert.ok(turn.toAnthropic()[0].content.some((b) => b.type === 'image'));
  checkOpenAIResponses(turn.toOpenAIResponses(), ['c1', 'c2', 'c3']);
  checkGemini(turn.toGemini(), ['c1', 'c2', 'c3']);
}

describe('gateway', () => {
  let server;
  before(async () => { server = await startServer(); });
  after(async () => { await server.stop(); });

  test('HTTP/SSE: a three-call turn with an image', async () => {
    const tb = await new Client(`http://127.0.0.1:${server.port}`, { token: TOKEN }).connect();
    try {
      checkTurn(await tb.runTurn('js:http:1', THREE_CALLS, { context: { user_id: '42' } }));
    } finally { await tb.close(); }
  });

  test('HTTP: a wrong token is an AuthenticationError', async () => {
    const tb = await new Client(`http://127.0.0.1:${server.port}`, { token: 'wrong' }).connect();
    try {
      await assert.rejects(tb.runTurn('js:http:auth', THREE_CALLS.slice(0, 1)), AuthenticationError);
    } finally { await tb.close(); }
  });

  test('WebSocket: a three-call turn with an image, and listTools', async () => {
    const tb = await new Client(`ws://127.0.0.1:${server.port}/v1/ws`, { token: TOKEN }).connect();
    try {
      checkTurn(await tb.runTurn('js:ws:1', THREE_CALLS));
      const tools = await tb.listTools('js:ws:tools');
      assert.ok(tools.some((t) => t.function.name === 'echo'));
    } finally { await tb.close(); }
  });
});

test('HTTP: a server that closes without an answer is a TransportError', async () => {
  const { createServer } = await import('node:net');
  const accepted = new Set();
  const silent = createServer((s) => { accepted.add(s); s.end(); });
  await new Promise((r) => silent.listen(0, '127.0.0.1', r));
  // fetch waits forever on a server that closes before reading the request: answerTimeoutMs bounds it
  const tb = await new Client(`http://127.0.0.1:${silent.address().port}`, { token: TOKEN, answerTimeoutMs: 1000 }).connect();
  try {
    await assert.rejects(tb.runTurn('js:http:silent', THREE_CALLS.slice(0, 1), { timeoutMs: 60000 }), { name: 'TransportError' });
    await assert.rejects(tb.cancel('js:http:silent'), { name: 'TransportError' });
  } finally {
    await tb.close();
    for (const s of accepted) s.destroy(); // fetch keeps its half of the connection open
    await new Promise((r) => silent.close(r));
  }
});

test('a turn whose sending hangs ends at the turn timeout', async () => {
  const tb = new Client('http://unused', { timeoutMs: 200 });
  tb.transport = { sendTurn: () => new Promise(() => {}), release() {} };
  await assert.rejects(tb.runTurn('s', THREE_CALLS.slice(0, 1)), { name: 'TurnTimeoutError' });
  assert.equal(tb.pending.size, 0);
});

test('stdio sidecar: a three-call turn', async () => {
  const tb = await new Client('stdio:', { command: serverCommand('--bus', 'stdio') }).connect();
  try {
    checkTurn(await tb.runTurn('js:stdio:1', THREE_CALLS));
  } finally { await tb.close(); }
});

describe('redis', { skip: !process.env.TOOLBUS_REDIS_URL && !REQUIRE_ALL && 'TOOLBUS_REDIS_URL not set (scripts/lib/services.sh starts Redis)' }, () => {
  const prefix = `jsclient${process.pid}`;
  let server;
  let config;
  before(async () => {
    config = writeConfig(`bus:\n  type: redis\n  url: ${process.env.TOOLBUS_REDIS_URL}\n  calls: '${prefix}:calls'\n  results: '${prefix}:results:{stream_id}'\n  group: ${prefix}\ngateway:\n  enabled: false\n`);
    server = await startBrokerServer('--config', config);
  });
  after(async () => {
    try { await server.stop(); } finally { removeConfig(config); }
  });

  test('a three-call turn over Redis Streams', async () => {
    const tb = await new Client(process.env.TOOLBUS_REDIS_URL, { callsStream: `${prefix}:calls`, resultsKey: `${prefix}:results:{stream_id}` }).connect();
    try {
      checkTurn(await tb.runTurn(`js:redis:${process.pid}`, THREE_CALLS, { timeoutMs: 60000 }));
    } finally { await tb.close(); }
  });
});

describe('kafka', { skip: !process.env.TOOLBUS_KAFKA_BOOTSTRAP && !REQUIRE_ALL && 'TOOLBUS_KAFKA_BOOTSTRAP not set (scripts/lib/services.sh starts Kafka)' }, () => {
  const prefix = `jsclient${process.pid}`;
  let server;
  let config;
  before(async () => {
    config = writeConfig(`bus:\n  type: kafka\n  url: ${process.env.TOOLBUS_KAFKA_BOOTSTRAP}\n  calls: '${prefix}.calls'\n  results: '${prefix}.results'\n  group: ${prefix}\ngateway:\n  enabled: false\n`);
    server = await startBrokerServer('--config', config);
  });
  after(async () => {
    try { await server.stop(); } finally { removeConfig(config); }
  });

  test('a three-call turn over Kafka', async () => {
    const tb = await new Client(`kafka://${process.env.TOOLBUS_KAFKA_BOOTSTRAP}`, { callsTopic: `${prefix}.calls`, resultsTopic: `${prefix}.results` }).connect();
    try {
      checkTurn(await tb.runTurn(`js:kafka:${process.pid}`, THREE_CALLS, { timeoutMs: 60000 }));
    } finally { await tb.close(); }
  });
});

test('duplicate events are dropped', async () => {
  const tb = new Client('http://unused');
  const turnDone = { type: 'turn_completed', stream_id: 's', turn_id: 't', tool_call_ids: ['a'], error_count: 0, elapsed_ms: 0 };
  const result = { type: 'tool_result', stream_id: 's', turn_id: 't', tool_call_id: 'a', name: 'echo', content: 'x', is_error: false };
  let resolved;
  tb.pending.set('s\u0000t', { event: {}, turn: new (await import('../src/turn.js')).Turn('s', 't'), resolve: (t) => { resolved = t; }, reject: () => {}, callbacks: {} });
  tb.deliver(result);
  tb.deliver({ ...result });
  tb.deliver(turnDone);
  await until(() => resolved);
  assert.equal(resolved.results.length, 1);
  assert.equal(tb.duplicatesDropped, 1);
});

test('the memory of seen events is bounded in entries and bytes', async () => {
  const { SeenKeys } = await import('../src/events.js');
  const seen = new SeenKeys(2);
  assert.ok(seen.add('a'));
  assert.ok(!seen.add('a'));
  assert.ok(seen.add('x'.repeat(1 << 20)));
  assert.ok(seen.add('b'));
  assert.equal(seen.keys.size, 2);
  assert.ok(seen.add('a'), 'the oldest key was forgotten');
  assert.ok([...seen.keys].every((k) => k.length === 32), 'keys are kept as 32-byte digests');
});
