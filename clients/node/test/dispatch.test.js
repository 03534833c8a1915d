// listTools with the conversation text through the Node client, against a real `toolbus serve` with
// dispatch on and a local chat-completions server (node:http): the text reaches the model and the
// answer is narrowed to the group it chose.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { Client } from '../src/index.js';
import { TOKEN, removeConfig, startServer, writeConfig } from './support.js';

test('HTTP: listTools with a text is narrowed by dispatch', async (t) => {
  const seen = [];
  const model = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      seen.push(JSON.parse(body));
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: '{"groups": ["art"]}' } }] }));
    });
  });
  await new Promise((r) => model.listen(0, '127.0.0.1', r));
  const config = writeConfig('groups:\n'
    + '  - {name: math, description: Arithmetic, tools: [add, count]}\n'
    + '  - {name: art, description: Drawing pictures, tools: [draw]}\n'
    + `dispatch:\n  enabled: true\n  model: {baseUrl: "http://127.0.0.1:${model.address().port}/v1", name: tiny}\n`);
  t.after(() => removeConfig(config)); // after the finally below has stopped the server
  const server = await startServer('--config', config);
  try {
    const tb = await new Client(`http://127.0.0.1:${server.port}`, { token: TOKEN }).connect();
    try {
      const full = (await tb.listTools('js:dispatch')).map((t) => t.function.name);
      assert.ok(full.includes('add') && full.includes('draw'), String(full));
      assert.equal(seen.length, 0);
      const narrowed = await tb.listTools('js:dispatch', { text: 'draw me a cat' });
      assert.deepEqual(narrowed.map((t) => t.function.name), ['draw']);
      assert.equal(seen.at(-1).messages[1].content, 'draw me a cat');
    } finally { await tb.close(); }
  } finally {
    await server.stop();
    await new Promise((r) => model.close(r));
  }
});
