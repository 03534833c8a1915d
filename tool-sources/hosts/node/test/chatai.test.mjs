import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { chatai, EXAMPLES } from './child.mjs';

const PLUGINS = new URL('./plugins/', import.meta.url).pathname;

test('seed tool definition format and the context example', async () => {
  const child = chatai(`${EXAMPLES}chatai-tools`);
  const { tools } = await child.activate('chatai-tools');
  assert.deepEqual(tools.map((t) => t.name), ['my_tool', 'whoami']);
  assert.deepEqual(tools[0].inputSchema.required, ['param1']);
  child.call(2, 'my_tool', { param1: 'x' });
  assert.deepEqual(await child.read(), { id: 2, result: { result: '...' } });

  child.call(3, 'whoami', {}, { userId: 'u1', groupId: 'g1', permission: 'master' });
  const send = await child.read();
  assert.equal(send.method, 'send');
  assert.deepEqual(send.params.content, [{ type: 'text', text: 'hello u1' }]);
  child.write({ method: 'reply', params: { rid: send.params.rid, ok: true } });
  assert.deepEqual(await child.read(), { id: 3, result: { success: true, data: { user: 'u1', group: 'g1', master: true } } });

  child.call(4, 'whoami', {}, { userId: 'u2', permission: 'member' });
  const send2 = await child.read();
  child.write({ method: 'reply', params: { rid: send2.params.rid, ok: true } });
  assert.deepEqual(await child.read(), { id: 4, error: 'only the master may ask this' });
  await child.close();
});

test('function and class shapes, thrown and returned errors, bad files skipped', async () => {
  const child = chatai(`${PLUGINS}chatai-shapes`);
  const { tools } = await child.activate('shapes');
  assert.deepEqual(tools.map((t) => t.name).sort(), ['class_shape', 'fn_shape', 'never', 'returns_error', 'throws']);
  child.call(2, 'fn_shape', { n: 4 });
  assert.deepEqual(await child.read(), { id: 2, result: { text: 'n=4', doubled: 8, content: 'n=4' } });
  child.call(3, 'class_shape', {}, { permission: 'master' });
  assert.deepEqual(await child.read(), { id: 3, result: 'from a class, master=true' });
  child.call(4, 'throws', {});
  assert.deepEqual(await child.read(), { id: 4, error: 'Operation failed: Permission denied' });
  child.call(5, 'returns_error', {});
  assert.deepEqual(await child.read(), { id: 5, error: 'Operation failed' });
  child.call(6, 'never', {});
  child.write({ method: 'cancel', params: { id: 6, reason: 'timeout' } });
  assert.deepEqual(await child.read(), { id: 6, error: 'cancelled: timeout' });
  assert.match(child.stderr, /broken\.js does not load and is skipped/);
  assert.match(child.stderr, /nothing\.mjs: an export is not a tool/);
  await child.close();
});

test('the folder is watched: changed, added and removed files reload without a restart', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chatai-'));
  let child;
  // on every path, once the host (which watches the folder) has exited
  t.after(async () => { await child?.end(); rmSync(dir, { recursive: true, force: true }); });
  cpSync(`${EXAMPLES}chatai-tools/my_tool.js`, join(dir, 'my_tool.js'));
  child = chatai(dir);
  await child.activate('live');
  const tool = (name, text) => `export default { name: '${name}', description: 'd', inputSchema: { type: 'object', properties: {} },
    handler: async () => ({ text: '${text}' }) }\n`;
  writeFileSync(join(dir, 'added.js'), tool('added', 'v1'));
  const changed = await child.read();
  assert.equal(changed.method, 'tools_changed');
  assert.deepEqual(changed.params.tools.map((t) => t.name), ['added', 'my_tool']);
  child.call(2, 'added', {});
  assert.deepEqual(await child.read(), { id: 2, result: 'v1' });

  writeFileSync(join(dir, 'added.js'), tool('added', 'v2'));
  // same declarations: no tools_changed; the next call runs the new code
  for (let i = 0; ; i++) {
    child.call(10 + i, 'added', {});
    const answer = await child.read();
    if (answer.result === 'v2') break;
    assert.ok(i < 200, 'the changed file was never reloaded');
    await new Promise((r) => setTimeout(r, 25));
  }
  unlinkSync(join(dir, 'added.js'));
  const removed = await child.read();
  assert.deepEqual(removed.params.tools.map((t) => t.name), ['my_tool']);
  await child.close();
});
