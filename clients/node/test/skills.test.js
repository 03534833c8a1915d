// list_skills through the Node client against a real `toolbus serve --skills`: over HTTP and the stdio
// sidecar, list_skills, a load_skill call, then list_skills again hands the loaded skill back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '../src/index.js';
import { TOKEN, serverCommand, startServer } from './support.js';

/** The skills folder, removed after test `t` (whose server or sidecar has stopped by then). */
function skillsDir(t) {
  const root = mkdtempSync(join(tmpdir(), 'toolbus-js-skills-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'pdf'));
  writeFileSync(join(root, 'pdf', 'SKILL.md'), '---\nname: pdf-tools\ndescription: Fill and merge PDF forms\ntriggers: [表单]\n---\nUse pdftk.\n');
  writeFileSync(join(root, 'deploy.skill.yaml'), 'name: deploy\ndescription: Deploy the bot\ncontent: |\n  1. build\n  2. ship\n');
  return root;
}

async function checkFlow(tb, stream) {
  const first = await tb.listSkills(stream, { text: '帮我填这个表单', selected: ['nope'] });
  assert.equal(first.type, 'skills');
  assert.equal(first.mode, 'auto');
  assert.deepEqual(first.skills.map((s) => s.name), ['deploy', 'pdf-tools']);
  assert.deepEqual(first.documents.map((d) => [d.name, d.reason]), [['pdf-tools', 'matched']]);
  assert.deepEqual(first.missing, ['nope']);
  assert.deepEqual(first.loaded, []);
  const turn = await tb.runTurn(stream, [{ id: 'c1', type: 'function', function: { name: 'load_skill', arguments: '{"name":"deploy"}' } }]);
  assert.equal(turn.results[0].is_error, false, turn.results[0].content);
  const again = await tb.listSkills(stream);
  assert.deepEqual(again.loaded, ['deploy']);
  assert.equal(again.documents[0].reason, 'loaded');
  assert.equal(again.documents[0].text, '# deploy\n\n1. build\n2. ship');
}

test('HTTP: listSkills, load_skill, listSkills again', async (t) => {
  const server = await startServer('--skills', skillsDir(t));
  try {
    const tb = await new Client(`http://127.0.0.1:${server.port}`, { token: TOKEN }).connect();
    try { await checkFlow(tb, 'js:http:skills'); } finally { await tb.close(); }
  } finally { await server.stop(); }
});

test('stdio sidecar: listSkills, load_skill, listSkills again', async (t) => {
  const tb = await new Client('stdio:', { command: serverCommand('--bus', 'stdio', '--skills', skillsDir(t)) }).connect();
  try { await checkFlow(tb, 'js:stdio:skills'); } finally { await tb.close(); }
});
