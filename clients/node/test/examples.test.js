import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TOKEN, startServer } from './support.js';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');

test('the README example runs', async () => {
  const server = await startServer();
  try {
    const { stdout } = await promisify(execFile)('node', [join(pkg, 'examples', 'quickstart.mjs')], {
      env: { ...process.env, TOOLBUS_URL: `http://127.0.0.1:${server.port}`, TOOLBUS_TOKEN: TOKEN }, timeout: 120000,
    });
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, 3, stdout);
    assert.ok(lines[0].startsWith('{"role":"tool","tool_call_id":"call_1"'), lines[0]);
    assert.match(lines[2], /"image_url"/);
  } finally {
    await server.stop();
  }
});
