// Conversation control through the client against a real `toolbus serve`, on every transport the
// client supports: a cancel, an approval answered from a callback (approve and deny), a send_message
// received, a tool's question answered, duplicate events dropped, and a dropped WebSocket reconnected
// without losing the turn. Mirrors clients/python/tests/test_control.py and test_transports.py.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '../src/index.js';
import { TOKEN, cuttableProxy, removeConfig, serverCommand, startBrokerServer, startServer, until, writeConfig } from './support.js';

// in CI every transport must be tested, never skipped
const REQUIRE_ALL = process.env.TOOLBUS_REQUIRE_ALL_TRANSPORTS === '1';
// the servers run with approval mode auto for the wipe cases; echo, greet, ask_city and progress are
// medium risk, so the other cases switch the step off for their turn
const NO_APPROVAL = { approval_mode: 'off' };
const WIPE = [{ tool_call_id: 'w', name: 'wipe', arguments: { target: 'tmp' } }];

/**
 * The cases. `open(callbacks)` gives `{ tb, turn, done }`: a connected client, the per-turn options
 * that carry the callbacks when the client is shared (stdio), and how to let the client go.
 */
function controlCases(name, open) {
  const stream = (what) => `js:${name}:${what}:${process.pid}`;

  test('a cancel stops the running call and keeps the rest', async () => {
    const progress = [];
    const { tb, turn: opts, done } = await open({ onProgress: (p) => progress.push(p) });
    try {
      const s = stream('cancel');
      // 100 steps of 300 ms: 30 s unless cancelled; its first progress event shows it runs
      const run = tb.runTurn(s, [
        { tool_call_id: 'fast', name: 'echo', arguments: { text: 'kept' } },
        { tool_call_id: 'slow', name: 'progress', arguments: { steps: 100, ms: 300 } }],
      { ...opts, turnId: 't-cancel', context: NO_APPROVAL, timeoutMs: 60000 });
      await until(() => progress.length, 30000);
      const started = Date.now();
      await tb.cancel(s, { turnId: 't-cancel', toolCallId: 'slow', reason: 'user said stop' });
      const turn = await run;
      assert.ok(Date.now() - started < 10000, 'the cancelled turn completes promptly, not after 30 s');
      assert.equal(turn.result('fast').content, 'kept');
      assert.equal(turn.result('slow').is_error, true);
      assert.equal(turn.result('slow').error.code, 'CANCELLED');
      assert.ok(progress.length < 100);
      assert.equal(turn.completed.error_count, 1);
    } finally { await done(); }
  });

  test('an approval answered from a callback runs the call', async () => {
    const asked = [];
    const { tb, turn: opts, done } = await open({ onApprovalRequest: async (req) => { asked.push(req); await req.approve(); } });
    try {
      const turn = await tb.runTurn(stream('approve'), WIPE, { ...opts, timeoutMs: 60000 });
      assert.equal(asked.length, 1);
      assert.equal(asked[0].calls[0].tool_call_id, 'w');
      assert.equal(asked[0].calls[0].risk, 'high');
      assert.equal(turn.result('w').content, 'wiped tmp');
      assert.equal(turn.result('w').is_error, false);
    } finally { await done(); }
  });

  test('a denied approval does not run the call', async () => {
    const { tb, turn: opts, done } = await open({ onApprovalRequest: (req) => req.deny() });
    try {
      const turn = await tb.runTurn(stream('deny'), WIPE, { ...opts, timeoutMs: 60000 });
      assert.equal(turn.result('w').error.code, 'NOT_APPROVED');
    } finally { await done(); }
  });

  test('an approval may edit the arguments of its call', async () => {
    const { tb, turn: opts, done } = await open({ onApprovalRequest: (req) => req.approve({ toolCallId: 'w', arguments: { target: 'other' } }) });
    try {
      const turn = await tb.runTurn(stream('edit'), WIPE, { ...opts, timeoutMs: 60000 });
      assert.equal(turn.result('w').content, 'wiped other');
      assert.equal(turn.result('w').metadata.arguments_edited, true);
    } finally { await done(); }
  });

  test('a deny may say why, and the model reads it', async () => {
    const { tb, turn: opts, done } = await open({ onApprovalRequest: (req) => req.deny({ message: 'not on a friday' }) });
    try {
      const turn = await tb.runTurn(stream('deny-why'), WIPE, { ...opts, timeoutMs: 60000 });
      assert.equal(turn.result('w').error.code, 'NOT_APPROVED');
      assert.match(turn.result('w').content, /not on a friday/);
    } finally { await done(); }
  });

  test('a send_message arrives before the result', async () => {
    const sent = [];
    const { tb, turn: opts, done } = await open({ onSendMessage: (m) => sent.push(m) });
    try {
      const turn = await tb.runTurn(stream('greet'), [{ tool_call_id: 'g', name: 'greet', arguments: { text: '你好！' } }],
        { ...opts, context: NO_APPROVAL, timeoutMs: 60000 });
      assert.deepEqual(sent.map((m) => m.text()), ['你好！']);
      assert.equal(sent[0].tool_call_id, 'g');
      const kinds = turn.events.map((e) => e.type);
      assert.ok(kinds.indexOf('send_message') >= 0 && kinds.indexOf('send_message') < kinds.indexOf('tool_result'), kinds.join());
      assert.equal(turn.result('g').content, 'greeted');
    } finally { await done(); }
  });

  test('a redelivered turn is answered again and the copies are dropped', async () => {
    const { tb, turn: opts, done } = await open({});
    try {
      const s = stream('redelivered');
      const calls = [{ tool_call_id: 'd1', name: 'echo', arguments: { text: 'once' } },
        { tool_call_id: 'd2', name: 'draw', arguments: { label: 'a cat' } }];
      const first = await tb.runTurn(s, calls, { ...opts, turnId: 't-first', context: NO_APPROVAL, timeoutMs: 60000 });
      assert.equal(first.events.length, 4); // two results, the image's user_message, turn_completed
      const before = tb.duplicatesDropped;
      // a later turn keeps the stream followed (Redis reads a stream only while it has a turn)
      const later = tb.runTurn(s, [{ tool_call_id: 'l1', name: 'sleep', arguments: { ms: 30000 } }],
        { ...opts, turnId: 't-later', context: NO_APPROVAL, timeoutMs: 60000 });
      await until(() => tb.pending.has(`${s}\u0000t-later`));
      // the first turn delivered again, as an at-least-once bus or a retrying sender would: toolbus
      // does not run it again and answers with its recorded events, marked replayed. (A copy that comes
      // before the finished run is recorded joins it, and on a bus publishes nothing: the copy is sent
      // again until an answer comes.)
      const copy = { type: 'tool_calls', stream_id: s, turn_id: 't-first', calls, context: NO_APPROVAL };
      for (let attempt = 0; ; attempt++) {
        await tb.transport.sendTurn(copy);
        try {
          await until(() => tb.duplicatesDropped >= before + 4, 3000);
          break;
        } catch (e) {
          if (attempt === 9) throw e;
        }
      }
      await tb.cancel(s, { turnId: 't-later' });
      const turn = await later;
      assert.deepEqual(turn.results.map((r) => r.tool_call_id), ['l1']);
      assert.equal(turn.result('l1').error.code, 'CANCELLED');
      assert.equal(first.events.length, 4);
      assert.equal(first.result('d1').content, 'once');
    } finally { await done(); }
  });

  test("the bot core's trace context comes back on every event", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const { tb, turn: opts, done } = await open({});
    try {
      const turn = await tb.runTurn(stream('traced'), [
        { tool_call_id: 't1', name: 'add', arguments: { a: 2, b: 40 } },
        { tool_call_id: 't2', name: 'draw', arguments: { label: 'x' } }],
      { ...opts, context: NO_APPROVAL, timeoutMs: 60000, traceparent: `00-${traceId}-00f067aa0ba902b7-01`, tracestate: 'core=1' });
      assert.equal(turn.events.length, 4);
      for (const e of turn.events) {
        assert.match(e.traceparent ?? '', new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`), e.type);
        assert.equal(e.tracestate, 'core=1');
      }
    } finally { await done(); }
  });

  test("a control event's trace context reaches toolbus: answers nobody waits for come back with it", async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const errors = [];
    const refused = [];
    let client;
    const { tb, turn: opts, done } = await open({
      onError: (e) => errors.push(e),
      onApprovalRequest: async (req) => {
        const stray = [
          () => client.respondApproval({ ...req, approval_id: 'ap-nobody-waits' }, 'approve', { traceparent, tracestate: 'ui=1' }),
          () => client.respondInput({ stream_id: req.stream_id, input_id: 'in-nobody-waits' }, 'accept', { city: 'Oslo' },
            { traceparent, tracestate: 'ui=1' })];
        for (const answer of stray) {
          try { await answer(); } catch (err) { refused.push(err); } // over HTTP the 404 answers the POST itself
        }
        await client.respondApproval(req, 'approve', { traceparent });
      },
    });
    client = tb;
    try {
      const turn = await tb.runTurn(stream('traced-answer'), WIPE, { ...opts, timeoutMs: 60000 });
      assert.equal(turn.result('w').content, 'wiped tmp');
      if (name === 'http') {
        assert.deepEqual(refused.map((e) => String(e.message).slice(0, 8)), ['HTTP 404', 'HTTP 404']);
        assert.deepEqual(errors, []);
      } else {
        await until(() => errors.length === 2, 10000);
        assert.deepEqual(refused, []);
        assert.deepEqual(errors.map((e) => [e.code, e.traceparent, e.tracestate]),
          [['UNKNOWN_REQUEST', traceparent, 'ui=1'], ['UNKNOWN_REQUEST', traceparent, 'ui=1']]);
        assert.deepEqual(['ap-nobody-waits', 'in-nobody-waits'].map((id) => errors.filter((e) => e.message.includes(id)).length), [1, 1]);
      }
    } finally { await done(); }
  });

  test('an input_request answered from a callback', async () => {
    const asked = [];
    const { tb, turn: opts, done } = await open({ onInputRequest: (req) => { asked.push(req); return req.accept({ city: 'Paris' }); } });
    try {
      const turn = await tb.runTurn(stream('ask'), [{ tool_call_id: 'a', name: 'ask_city', arguments: {} }],
        { ...opts, context: NO_APPROVAL, timeoutMs: 60000 });
      assert.equal(asked.length, 1);
      assert.equal(asked[0].message, 'Which city?');
      assert.equal(asked[0].tool_call_id, 'a');
      assert.equal(turn.result('a').content, 'city Paris');
    } finally { await done(); }
  });

  test('a declined input_request is an answer too', async () => {
    const { tb, turn: opts, done } = await open({ onInputRequest: (req) => req.decline() });
    try {
      const turn = await tb.runTurn(stream('decline'), [{ tool_call_id: 'a', name: 'ask_city', arguments: {} }],
        { ...opts, context: NO_APPROVAL, timeoutMs: 60000 });
      assert.equal(turn.result('a').content, 'no answer');
    } finally { await done(); }
  });
}

/** A client per case, with the callbacks on the client. */
const perCase = (url, options = {}) => async (callbacks) => {
  const tb = await new Client(url(), { ...options, ...callbacks }).connect();
  return { tb, turn: {}, done: () => tb.close() };
};

describe('gateway control', () => {
  let server;
  before(async () => { server = await startServer('--approval-mode', 'auto'); });
  after(async () => { await server.stop(); });

  describe('HTTP/SSE', () => controlCases('http', perCase(() => `http://127.0.0.1:${server.port}`, { token: TOKEN })));
  describe('WebSocket', () => controlCases('ws', perCase(() => `ws://127.0.0.1:${server.port}/v1/ws`, { token: TOKEN })));

  test('WebSocket: a dropped connection is reopened without losing the turn', async () => {
    const proxy = await cuttableProxy(server.port);
    const tb = await new Client(`ws://127.0.0.1:${proxy.port}/v1/ws`, { token: TOKEN }).connect();
    try {
      const run = tb.runTurn('js:ws:drop', [
        { tool_call_id: 'fast', name: 'echo', arguments: { text: 'x' } },
        { tool_call_id: 'slow', name: 'sleep', arguments: { ms: 1500 } }], { turnId: 'drop-1', context: NO_APPROVAL, timeoutMs: 60000 });
      // the first result proves the server runs the turn; then the network fails
      await until(() => [...tb.pending.values()].some((p) => p.turn.results.length), 30000);
      proxy.cut();
      const turn = await run;
      assert.ok(tb.transport.reconnects >= 1, 'the client reconnected');
      assert.ok(proxy.connections >= 2);
      assert.deepEqual(turn.results.map((r) => r.tool_call_id), ['fast', 'slow']);
      assert.ok(turn.results.every((r) => !r.is_error), JSON.stringify(turn.results));
      // the re-sent turn ran again: its second 'fast' result was a duplicate, and dropped
      await until(() => tb.duplicatesDropped >= 1, 30000);
      assert.equal(turn.results.length, 2);
    } finally {
      await tb.close();
      await proxy.close();
    }
  });

  test('HTTP/SSE: a stream that ends before turn_completed fails the turn with a TransportError', async () => {
    const proxy = await cuttableProxy(server.port);
    const tb = await new Client(`http://127.0.0.1:${proxy.port}`, { token: TOKEN }).connect();
    try {
      const run = tb.runTurn('js:http:ended', [
        { tool_call_id: 'fast', name: 'echo', arguments: { text: 'x' } },
        { tool_call_id: 'slow', name: 'sleep', arguments: { ms: 30000 } }], { context: NO_APPROVAL, timeoutMs: 60000 });
      await until(() => [...tb.pending.values()].some((p) => p.turn.results.length), 30000);
      const started = Date.now();
      proxy.end();
      await assert.rejects(run, { name: 'TransportError' });
      assert.ok(Date.now() - started < 10000, 'promptly, not at the turn timeout');
    } finally {
      await tb.close();
      await proxy.close();
    }
  });

  test('WebSocket: a cancel sent while the connection is down goes out once it is back', async () => {
    const proxy = await cuttableProxy(server.port);
    const progress = [];
    const tb = await new Client(`ws://127.0.0.1:${proxy.port}/v1/ws`, { token: TOKEN, onProgress: (p) => progress.push(p) }).connect();
    try {
      const run = tb.runTurn('js:ws:downcancel', [
        { tool_call_id: 'slow', name: 'progress', arguments: { steps: 100, ms: 300 } }],
      { turnId: 'down-1', context: NO_APPROVAL, timeoutMs: 60000 });
      await until(() => progress.length, 30000);
      proxy.refuse = true;
      proxy.cut();
      await until(() => tb.transport.socket === null);
      const cancelled = tb.cancel('js:ws:downcancel', { turnId: 'down-1', toolCallId: 'slow', reason: 'stop' });
      await until(() => proxy.refused >= 1, 10000); // a reconnect attempt failed: the cancel is waiting
      proxy.refuse = false;
      await cancelled;
      const turn = await run;
      assert.equal(turn.result('slow').error?.code, 'CANCELLED', JSON.stringify(turn.result('slow')));
      assert.ok(tb.transport.reconnects >= 1);
    } finally {
      await tb.close();
      await proxy.close();
    }
  });

  test('WebSocket without reconnect: a dropped connection fails the turn with a TransportError', async () => {
    const proxy = await cuttableProxy(server.port);
    const tb = await new Client(`ws://127.0.0.1:${proxy.port}/v1/ws`, { token: TOKEN, reconnect: false }).connect();
    try {
      const run = tb.runTurn('js:ws:noreconnect', [{ tool_call_id: 's', name: 'sleep', arguments: { ms: 5000 } }],
        { context: NO_APPROVAL, timeoutMs: 60000 });
      await until(() => proxy.connections >= 1 && tb.pending.size === 1);
      // let the turn reach the server before the cut
      await new Promise((r) => setImmediate(r));
      proxy.cut();
      await assert.rejects(run, { name: 'TransportError' });
    } finally {
      await tb.close();
      await proxy.close();
    }
  });
});

describe('stdio sidecar control (one client, callbacks per turn)', () => {
  let tb;
  // an error of no turn (an answer nobody waits for) goes to the client's onError: the running case's
  let onError = null;
  before(async () => {
    tb = await new Client('stdio:', { command: serverCommand('--bus', 'stdio', '--approval-mode', 'auto'),
      onError: (e) => onError?.(e) }).connect();
  });
  after(async () => { await tb.close(); });
  controlCases('stdio', async (callbacks) => {
    onError = callbacks.onError ?? null;
    return { tb, turn: callbacks, done: async () => { onError = null; } };
  });
});

const redisSkip = !process.env.TOOLBUS_REDIS_URL && !REQUIRE_ALL && 'TOOLBUS_REDIS_URL not set (scripts/lib/services.sh starts Redis)';
describe('redis control', { skip: redisSkip }, () => {
  const prefix = `jsctl${process.pid}`;
  const options = { callsStream: `${prefix}:calls`, resultsKey: `${prefix}:results:{stream_id}` };
  let server;
  let config;
  before(async () => {
    config = writeConfig(`bus:\n  type: redis\n  url: ${process.env.TOOLBUS_REDIS_URL}\n  calls: '${options.callsStream}'\n`
      + `  results: '${options.resultsKey}'\n  group: ${prefix}\ngateway:\n  enabled: false\napproval:\n  mode: auto\n`);
    server = await startBrokerServer('--config', config);
  });
  after(async () => {
    try { await server.stop(); } finally { removeConfig(config); }
  });

  controlCases('redis', perCase(() => process.env.TOOLBUS_REDIS_URL, options));

  test('two turns of one stream started together share one reader, and both complete', async () => {
    const s = `js:redis:two:${process.pid}`;
    const tb = await new Client(process.env.TOOLBUS_REDIS_URL, options).connect();
    try {
      const opts = { context: NO_APPROVAL, timeoutMs: 60000 };
      const a = tb.runTurn(s, [{ tool_call_id: 'a1', name: 'sleep', arguments: { ms: 300 } }], { ...opts, turnId: 'two-a' });
      const b = tb.runTurn(s, [{ tool_call_id: 'b1', name: 'echo', arguments: { text: 'b' } }], { ...opts, turnId: 'two-b' });
      await until(() => tb.transport.readers.get(s)?.users === 2);
      assert.equal(tb.transport.readers.size, 1);
      const [ta, tb2] = await Promise.all([a, b]);
      assert.equal(ta.result('a1').is_error, false);
      assert.equal(tb2.result('b1').content, 'b');
      assert.equal(tb.transport.readers.size, 0, 'the reader stops with the last turn');
    } finally { await tb.close(); }
  });

  test('events written to the results stream again are dropped', async () => {
    const Redis = (await import('ioredis')).default;
    const s = `js:redis:dup:${process.pid}`;
    const tb = await new Client(process.env.TOOLBUS_REDIS_URL, options).connect();
    const r = new Redis(process.env.TOOLBUS_REDIS_URL);
    try {
      const first = await tb.runTurn(s, [{ tool_call_id: 'c1', name: 'echo', arguments: { text: 'once' } }],
        { turnId: 'dup-1', context: NO_APPROVAL, timeoutMs: 60000 });
      assert.equal(first.results.length, 1);
      const key = options.resultsKey.replace('{stream_id}', s);
      const entries = await r.xrange(key, '-', '+');
      const before = tb.duplicatesDropped;
      // a second turn follows the stream; the first turn's events arrive again, as a redelivery would bring them
      const second = tb.runTurn(s, [{ tool_call_id: 'c9', name: 'sleep', arguments: { ms: 300 } }],
        { turnId: 'dup-2', context: NO_APPROVAL, timeoutMs: 60000 });
      await until(() => tb.transport.readers.has(s));
      for (const [, fields] of entries) await r.xadd(key, '*', ...fields);
      const turn = await second;
      assert.deepEqual(turn.results.map((x) => x.tool_call_id), ['c9']);
      await until(() => tb.duplicatesDropped >= before + entries.length, 30000);
      assert.equal(first.results.length, 1);
    } finally {
      r.disconnect();
      await tb.close();
    }
  });
});

const kafkaSkip = !process.env.TOOLBUS_KAFKA_BOOTSTRAP && !REQUIRE_ALL && 'TOOLBUS_KAFKA_BOOTSTRAP not set (scripts/lib/services.sh starts Kafka)';
describe('kafka control', { skip: kafkaSkip }, () => {
  const prefix = `jsctl${process.pid}`;
  const options = { callsTopic: `${prefix}.calls`, resultsTopic: `${prefix}.results` };
  const url = () => `kafka://${process.env.TOOLBUS_KAFKA_BOOTSTRAP}`;
  let server;
  // one client for the cases (a Kafka consumer group takes seconds to join), callbacks per turn; an error
  // of no turn goes to the client's onError: the running case's
  let shared;
  let onError = null;
  let config;
  before(async () => {
    config = writeConfig(`bus:\n  type: kafka\n  url: ${process.env.TOOLBUS_KAFKA_BOOTSTRAP}\n  calls: '${options.callsTopic}'\n`
      + `  results: '${options.resultsTopic}'\n  group: ${prefix}\ngateway:\n  enabled: false\napproval:\n  mode: auto\n`);
    server = await startBrokerServer('--config', config);
    shared = await new Client(url(), { ...options, onError: (e) => onError?.(e) }).connect();
  });
  after(async () => {
    try {
      await shared?.close();
      await server.stop();
    } finally { removeConfig(config); }
  });

  controlCases('kafka', async (callbacks) => {
    onError = callbacks.onError ?? null;
    return { tb: shared, turn: callbacks, done: async () => { onError = null; } };
  });

  test('events produced to the results topic again are dropped', async () => {
    const { Kafka, logLevel } = await import('kafkajs');
    const producer = new Kafka({ brokers: [process.env.TOOLBUS_KAFKA_BOOTSTRAP], logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    const s = `js:kafka:dup:${process.pid}`;
    try {
      const first = await shared.runTurn(s, [{ tool_call_id: 'c1', name: 'echo', arguments: { text: 'once' } }],
        { turnId: 'dup-1', context: NO_APPROVAL, timeoutMs: 60000 });
      assert.equal(first.results.length, 1);
      const before = shared.duplicatesDropped;
      const second = shared.runTurn(s, [{ tool_call_id: 'c9', name: 'sleep', arguments: { ms: 1000 } }],
        { turnId: 'dup-2', context: NO_APPROVAL, timeoutMs: 60000 });
      // the first turn's events again, as a redelivery after a consumer restart would bring them
      const again = first.events.map((e) => ({ key: s, value: JSON.stringify(e) }));
      await producer.send({ topic: options.resultsTopic, messages: again });
      const turn = await second;
      assert.deepEqual(turn.results.map((x) => x.tool_call_id), ['c9']);
      await until(() => shared.duplicatesDropped >= before + again.length, 30000);
      assert.equal(first.results.length, 1);
    } finally {
      await producer.disconnect();
    }
  });

  test('a client does not answer the approvals of streams it does not run', async () => {
    const other = [];
    const bystander = await new Client(url(), { ...options, onApprovalRequest: (req) => { other.push(req); return req.approve(); } }).connect();
    try {
      const turn = await shared.runTurn(`js:kafka:own:${process.pid}`, WIPE, { onApprovalRequest: (req) => req.deny(), timeoutMs: 60000 });
      assert.equal(turn.result('w').error.code, 'NOT_APPROVED');
      assert.deepEqual(other, []);
    } finally { await bystander.close(); }
  });
});
