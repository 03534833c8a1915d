import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXAMPLES, openclaw } from './child.mjs';

const PLUGINS = new URL('./plugins/', import.meta.url).pathname;

test('seed my_tool: TypeBox parameters without the typebox package, text content', async () => {
  const child = openclaw(`${EXAMPLES}openclaw-my-tool`);
  const { tools } = await child.activate('my-tool');
  assert.deepEqual(tools, [{ name: 'my_tool', description: 'Do a thing',
    inputSchema: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] } }]);
  child.call(2, 'my_tool', { input: 'hi' });
  assert.deepEqual(await child.read(), { id: 2, result: 'hi' });
  assert.equal((await child.close()).code, 0);
});

test('seed workflow_tool is declared optional', async () => {
  const child = openclaw(`${EXAMPLES}openclaw-workflow`);
  const { tools } = await child.activate('workflow');
  assert.equal(tools[0].name, 'workflow_tool');
  assert.equal(tools[0].optional, true);
  child.call(2, 'workflow_tool', { pipeline: 'nightly' });
  assert.deepEqual(await child.read(), { id: 2, result: 'nightly' });
  await child.close();
});

test('image parts become content_items, attributes and config reach the declaration and the plugin', async () => {
  const child = openclaw(`${PLUGINS}openclaw-calls`, { env: { ...process.env, TOOLBUS_PLUGIN_CONFIG: '{"region":"eu"}' } });
  const { tools } = await child.activate('calls');
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.deepEqual(byName.chart.inputSchema, { type: 'object',
    properties: { title: { type: 'string' }, size: { type: 'integer', minimum: 1 } }, required: ['title'] });
  assert.deepEqual({ ...byName.show_config, inputSchema: undefined }, { name: 'show_config',
    description: 'Returns the plugin config', inputSchema: undefined, optional: true, dangerous: true,
    requiredPermission: 'admin', groups: ['ops'] });
  child.call(2, 'chart', { title: 'sales' }, { toolCallId: 'call_7' });
  const chart = await child.read();
  assert.equal(chart.result, 'sales (call_7)');
  assert.equal(chart.content_items[0].type, 'image');
  assert.equal(chart.content_items[0].mime_type, 'image/png');
  child.call(3, 'show_config', {});
  assert.deepEqual(await child.read(), { id: 3, result: '{"region":"eu"}' });
  child.call(4, 'boom', {});
  assert.deepEqual(await child.read(), { id: 4, error: 'exploded' });
  assert.match(child.stderr, /a stray console.log/);
  assert.match(child.stderr, /calls plugin registering/); // api.logger.info
  await child.close();
});

test('cancel aborts the signal passed to execute', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'openclaw-'));
  let child;
  // on every path, once the plugin (which writes the marker) has exited
  t.after(async () => { await child?.end(); rmSync(dir, { recursive: true, force: true }); });
  const marker = join(dir, 'marker');
  child = openclaw(`${PLUGINS}openclaw-calls`);
  await child.activate('calls');
  child.call(2, 'wait_abort', { marker });
  child.call(3, 'boom', {});
  assert.deepEqual(await child.read(), { id: 3, error: 'exploded' });
  child.write({ method: 'cancel', params: { id: 2, toolCallId: 'c2', reason: 'timeout' } });
  assert.deepEqual(await child.read(), { id: 2, error: 'cancelled: timeout' });
  assert.equal(readFileSync(marker, 'utf8'), 'aborted: timeout');
  await child.close();
});

test('register(api) objects, bare string results, unsupported registrations are ignored', async () => {
  const child = openclaw(`${PLUGINS}openclaw-register`);
  const { tools } = await child.activate('reg');
  assert.deepEqual(tools.map((t) => t.name), ['plain']);
  child.call(2, 'plain', {});
  assert.deepEqual(await child.read(), { id: 2, result: 'plain text' });
  assert.match(child.stderr, /registerHook is not supported/);
  await child.close();
});

test('bad plugins answer activate with a clear error', async () => {
  for (const [dir, pattern] of [['openclaw-syntax', /activation failed: .*(Unexpected|SyntaxError|missing)/i],
    ['openclaw-nothing', /exports no plugin function/]]) {
    const child = openclaw(`${PLUGINS}${dir}`);
    const answer = await child.activate(dir);
    assert.match(answer.error, pattern, dir);
    await child.close();
  }
});

test('garbage input lines are skipped and unknown tools answered', async () => {
  const child = openclaw(`${EXAMPLES}openclaw-my-tool`);
  await child.activate('my-tool');
  child.write('not json at all');
  child.write('[1,2,3]');
  child.call(2, 'nope', {});
  assert.deepEqual(await child.read(), { id: 2, error: 'unknown tool: nope' });
  await child.close();
});
