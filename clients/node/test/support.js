// Test support: a real `toolbus serve` process, provider shape checks, and waiting helpers.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

const here = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(here, '..', '..', '..');
export const JAR = process.env.TOOLBUS_JAR || join(ROOT, 'server', 'target', 'toolbus-server.jar');
export const TOKEN = 'js-client-secret';

export function serverCommand(...args) {
  const opts = (process.env.TOOLBUS_JAVA_OPTS || '-Xmx256m').split(/\s+/).filter(Boolean);
  return ['java', ...opts, '-jar', JAR, 'serve', '--sample-tools', '--log-level', 'warn', ...args];
}

export async function startServer(...args) {
  assert.ok(existsSync(JAR), `build the server first (${JAR})`);
  const dir = mkdtempSync(join(tmpdir(), 'toolbus-js-'));
  const portFile = join(dir, 'port');
  const [cmd, ...rest] = serverCommand(...args, '--gateway', '127.0.0.1:0', '--port-file', portFile, '--token', TOKEN);
  const proc = spawn(cmd, rest, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  const port = await until(() => (existsSync(portFile) && readFileSync(portFile, 'utf8').trim()) || (proc.exitCode !== null && 'exit'), 60000);
  if (port === 'exit') throw new Error(`toolbus serve exited: ${stderr}`);
  return { proc, port: Number(port), stop: () => stopProcess(proc) };
}

export async function startBrokerServer(...args) {
  const proc = spawn(serverCommand(...args)[0], serverCommand(...args).slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  return { proc, stderr: () => stderr, stop: () => stopProcess(proc) };
}

export function writeConfig(text) {
  const dir = mkdtempSync(join(tmpdir(), 'toolbus-js-'));
  const f = join(dir, 'toolbus.yaml');
  writeFileSync(f, text);
  return f;
}

function stopProcess(proc) {
  if (proc.exitCode !== null) return Promise.resolve();
  return new Promise((r) => {
    const t = setTimeout(() => proc.kill('SIGKILL'), 30000);
    proc.once('exit', () => { clearTimeout(t); r(); });
    proc.kill('SIGTERM');
  });
}

/** Polls `f` until it returns something truthy. */
export async function until(f, timeoutMs = 10000, intervalMs = 20) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

const b64 = (s) => assert.match(s, /^[A-Za-z0-9+/]+=*$/);

/** OpenAI Chat Completions: tool messages (tool_call_id, string content) before any user message; known part types. */
export function checkOpenAI(messages, ids) {
  let seenUser = false;
  const answered = [];
  for (const m of messages) {
    if (m.role === 'tool') {
      assert.ok(!seenUser, 'a tool message after a user message breaks the tool-call sequence');
      assert.equal(typeof m.tool_call_id, 'string');
      assert.equal(typeof m.content, 'string');
      answered.push(m.tool_call_id);
    } else {
      assert.equal(m.role, 'user');
      seenUser = true;
      for (const p of m.content) {
        if (p.type === 'text') assert.deepEqual(Object.keys(p).sort(), ['text', 'type']);
        else if (p.type === 'image_url') { assert.match(p.image_url.url, /^data:image\/[a-z]+;base64,/); b64(p.image_url.url.split(',')[1]); }
        else assert.fail(`unknown part type ${p.type}`);
      }
    }
  }
  assert.deepEqual(answered, ids);
}

/** Anthropic Messages: one user message, tool_result blocks first (tool_use_id, content), then text/image blocks. */
export function checkAnthropic(messages, ids) {
  assert.equal(messages.length, 1);
  const [m] = messages;
  assert.equal(m.role, 'user');
  const first = m.content.slice(0, ids.length);
  assert.deepEqual(first.map((b) => b.type), ids.map(() => 'tool_result'));
  assert.deepEqual(first.map((b) => b.tool_use_id), ids);
  for (const b of m.content.slice(ids.length)) {
    assert.ok(['text', 'image'].includes(b.type));
    if (b.type === 'image') {
      assert.equal(b.source.type, 'base64');
      assert.ok(['image/png', 'image/jpeg', 'image/gif', 'image/webp'].includes(b.source.media_type));
      b64(b.source.data);
    }
  }
}
