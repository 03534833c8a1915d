// A call's W3C trace context reaches plugin code in each Node idiom: the SDK's ctx.trace and
// currentTrace(), an OpenClaw plugin's currentTrace() import, a ChatAI tool's context.trace.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Child, chatai, openclaw } from './child.mjs';
import { parseTrace } from '../sdk.mjs';

const PLUGINS = new URL('./plugins/', import.meta.url).pathname;
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const CONTEXT = { streamId: 's1', toolCallId: 'c1', traceparent: TRACEPARENT, tracestate: 'core=1' };
const SEEN = { headers: { traceparent: TRACEPARENT, tracestate: 'core=1' }, traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7', sampled: true };

test('SDK: ctx.trace, and currentTrace() after awaits and in timers, for concurrent calls each their own', async () => {
  const child = new Child('node', [`${PLUGINS}sdk-traced/traced.mjs`]);
  await child.activate('traced');
  const other = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00';
  child.call(2, 'trace_of', {}, CONTEXT);
  child.call(3, 'trace_of', {}, { traceparent: other });
  child.call(4, 'trace_of', {}, { streamId: 's1' });
  const answers = Object.fromEntries(await Promise.all([child.read(), child.read(), child.read()])
    .then((list) => list.map((a) => [a.id, a.result])));
  assert.deepEqual(answers[2], { ctx: SEEN, afterAwait: SEEN, inTimer: SEEN });
  const unsampled = { headers: { traceparent: other }, traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331', sampled: false };
  assert.deepEqual(answers[3], { ctx: unsampled, afterAwait: unsampled, inTimer: unsampled });
  assert.deepEqual(answers[4], { ctx: null, afterAwait: null, inTimer: null });
  assert.equal((await child.close()).code, 0);
});

test('OpenClaw: a plugin outside any npm project imports currentTrace from toolbus-plugin', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'openclaw-traced-'));
  let child;
  // on every path, once the plugin (loaded from the folder) has exited
  t.after(async () => { await child?.end(); rmSync(dir, { recursive: true, force: true }); });
  cpSync(`${PLUGINS}openclaw-traced`, dir, { recursive: true });
  child = openclaw(dir);
  const { tools } = await child.activate('traced');
  assert.deepEqual(tools.map((t) => t.name), ['traced']);
  child.call(2, 'traced', {}, CONTEXT);
  assert.deepEqual(await child.read(), { id: 2, result: JSON.stringify(SEEN.headers) });
  child.call(3, 'traced', {}, { traceparent: 'not one' });
  assert.deepEqual(await child.read(), { id: 3, result: 'null' });
  await child.close();
});

test('ChatAI: context.trace', async () => {
  const child = chatai(`${PLUGINS}chatai-traced`);
  await child.activate('traced');
  child.call(2, 'traced', {}, CONTEXT);
  assert.deepEqual(await child.read(), { id: 2, result: { headers: SEEN.headers, spanId: '00f067aa0ba902b7' } });
  child.call(3, 'traced', {}, {});
  assert.deepEqual(await child.read(), { id: 3, result: { headers: null, spanId: null } });
  await child.close();
});

test('parseTrace reads only W3C traceparents', () => {
  assert.deepEqual(parseTrace(TRACEPARENT, 'a=1').headers(), { traceparent: TRACEPARENT, tracestate: 'a=1' });
  for (const bad of [undefined, 42, '', TRACEPARENT.toUpperCase(), `${TRACEPARENT}-x`, `ff${TRACEPARENT.slice(2)}`,
    `00-${'0'.repeat(32)}${TRACEPARENT.slice(35)}`, `${TRACEPARENT.slice(0, 36)}${'0'.repeat(16)}-01`, TRACEPARENT.slice(0, -1)]) {
    assert.equal(parseTrace(bad), null, String(bad));
  }
  assert.notEqual(parseTrace(`01${TRACEPARENT.slice(2)}-more`), null);
  assert.equal(parseTrace(`01${TRACEPARENT.slice(2)}more`), null);
  assert.equal(parseTrace(TRACEPARENT, 'x'.repeat(513)).tracestate, undefined);
  assert.equal(parseTrace(TRACEPARENT, 'caf\u00e9=1').tracestate, undefined);
});
