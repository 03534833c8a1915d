// The README's example: the block in README.md is examples/quickstart.mjs, and it runs against a real
// `toolbus serve`, printing the messages for the next OpenAI request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TOKEN, startServer } from './support.js';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const example = join(pkg, 'examples', 'quickstart.mjs');

/** The first ```js block after the README's "## Example" heading. */
function readmeExample() {
  const readme = readFileSync(join(pkg, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Example'));
  const m = section.match(/```js\n([\s\S]*?)```/);
  assert.ok(m, 'README.md has a js block under ## Example');
  return m[1];
}

test('the README example is examples/quickstart.mjs', () => {
  assert.equal(readmeExample(), readFileSync(example, 'utf8'));
});

test('the README example runs', async () => {
  const server = await startServer();
  try {
    const { stdout } = await promisify(execFile)('node', [example], {
      env: { ...process.env, TOOLBUS_URL: `http://127.0.0.1:${server.port}`, TOOLBUS_TOKEN: TOKEN }, timeout: 120000,
    });
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, 3, stdout);
    assert.ok(lines[0].startsWith('{"role":"tool","tool_call_id":"call_1","content":"{\\"sum\\": 42}"'), lines[0]);
    assert.ok(lines[1].startsWith('{"role":"tool","tool_call_id":"call_2"'), lines[1]);
    assert.match(lines[2], /^\{"role":"user","content":\[.*"image_url":\{"url":"data:image\/png;base64,/);
  } finally {
    await server.stop();
  }
});
