import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Child } from './child.mjs';

const EXAMPLE = new URL('../../../../docs/examples/sdk/node-weather/', import.meta.url).pathname;

test('node SDK: declarations, progress and result', async () => {
  const child = new Child('node', ['weather.mjs'], { cwd: EXAMPLE });
  const { tools } = await child.activate('node-weather');
  assert.equal(tools[0].name, 'forecast');
  assert.equal(tools[0].cacheable, true);
  assert.deepEqual(tools[0].inputSchema.required, ['city']);
  child.call(2, 'forecast', { city: 'Oslo', days: 2 });
  assert.deepEqual(await child.read(), { method: 'progress', params: { id: 2, progress: 1, total: 2, message: 'day 1' } });
  assert.deepEqual(await child.read(), { method: 'progress', params: { id: 2, progress: 2, total: 2, message: 'day 2' } });
  assert.deepEqual(await child.read(), { id: 2, result: 'Oslo day 1: 11 °C\nOslo day 2: 12 °C' });
  child.call(3, 'nope', {});
  assert.deepEqual(await child.read(), { id: 3, error: 'unknown tool: nope' });
  assert.equal((await child.close()).code, 0);
});
