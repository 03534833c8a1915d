// Test support: a real `toolbus serve` process, a TCP proxy that can cut connections, provider shape
// checks (the request formats the providers document; mirrors clients/python/tests/provider_shapes.py),
// and waiting helpers.
import { spawn } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/**
 * `toolbus serve` with the gateway on a free port. Its port file lives in a folder of the temp folder
 * that `stop()` removes once the process has ended (a failed start stops and removes it too).
 */
export async function startServer(...args) {
  assert.ok(existsSync(JAR), `build the server first (${JAR})`);
  const dir = mkdtempSync(join(tmpdir(), 'toolbus-js-'));
  const portFile = join(dir, 'port');
  const [cmd, ...rest] = serverCommand(...args, '--gateway', '127.0.0.1:0', '--port-file', portFile, '--token', TOKEN);
  const proc = spawn(cmd, rest, { stdio: ['ignore', 'ignore', 'pipe'] });
  const stop = async () => {
    try { await stopProcess(proc); } finally { removeDir(dir); }
  };
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  let port;
  try {
    port = await until(() => (existsSync(portFile) && readFileSync(portFile, 'utf8').trim()) || (proc.exitCode !== null && 'exit'), 60000);
    if (port === 'exit') throw new Error(`toolbus serve exited: ${stderr}`);
  } catch (e) {
    await stop();
    throw e;
  }
  return { proc, port: Number(port), stop };
}

export async function startBrokerServer(...args) {
  const proc = spawn(serverCommand(...args)[0], serverCommand(...args).slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  return { proc, stderr: () => stderr, stop: () => stopProcess(proc) };
}

/** A toolbus.yaml holding `text`, in a new folder of the temp folder; the caller removes it with removeConfig. */
export function writeConfig(text) {
  const dir = mkdtempSync(join(tmpdir(), 'toolbus-js-'));
  const f = join(dir, 'toolbus.yaml');
  writeFileSync(f, text);
  return f;
}

/** Removes a writeConfig file with its folder (for an `after` hook, once the server reading it has stopped). */
export function removeConfig(file) {
  if (file) removeDir(dirname(file));
}

/** Removes a folder with everything in it; no error when it is gone already. */
export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}

function stopProcess(proc) {
  // ended already (by itself or a signal), or never started: no exit event is coming
  if (proc.exitCode !== null || proc.signalCode !== null || proc.pid === undefined) return Promise.resolve();
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

/**
 * Forwards 127.0.0.1:<port> to a target; `cut()` drops every open connection, as a network would;
 * `end()` closes them cleanly instead; while `refuse` is set, new connections are closed at once (the network is still down).
 */
export async function cuttableProxy(targetPort) {
  const sockets = new Set();
  let connections = 0;
  let refused = 0;
  let proxy = null;
  const server = createServer((down) => {
    if (proxy.refuse) { refused++; down.destroy(); return; }
    connections++;
    const up = createConnection({ host: '127.0.0.1', port: targetPort });
    for (const [a, b] of [[down, up], [up, down]]) {
      sockets.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => { sockets.delete(a); b.destroy(); });
      a.pipe(b);
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const cut = () => { for (const s of sockets) s.resetAndDestroy?.() ?? s.destroy(); sockets.clear(); };
  proxy = {
    port: server.address().port,
    refuse: false,
    get connections() { return connections; },
    get refused() { return refused; },
    cut,
    /** Closes every open connection cleanly (FIN, not a reset), as a proxy timing out would. */
    end: () => { for (const s of sockets) s.end(); },
    close: () => { cut(); return new Promise((r) => server.close(r)); },
  };
  return proxy;
}

const b64 = (s) => assert.match(s, /^[A-Za-z0-9+/]+=*$/);

const ANTHROPIC_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
const keysWithin = (o, allowed, what) => {
  for (const k of Object.keys(o)) assert.ok(allowed.includes(k), `${what} has the unknown key ${k}`);
};

/**
 * OpenAI Chat Completions: a tool message has tool_call_id and string content; user content parts are
 * text {text}, image_url {image_url: {url, detail?}} or input_audio {data, format wav|mp3}; the tool
 * messages answering one assistant message come right after it, before any user message.
 */
export function checkOpenAI(messages, ids) {
  let seenUser = false;
  const answered = [];
  messages.forEach((m, i) => {
    keysWithin(m, ['role', 'content', 'tool_call_id', 'name'], `message ${i}`);
    if (m.role === 'tool') {
      assert.ok(!seenUser, `tool message ${i} comes after a user message: the tool-call sequence breaks`);
      assert.ok(typeof m.tool_call_id === 'string' && m.tool_call_id, `tool message ${i} lacks tool_call_id`);
      assert.equal(typeof m.content, 'string');
      answered.push(m.tool_call_id);
    } else {
      assert.equal(m.role, 'user', `role ${m.role} is not expected after tool calls`);
      seenUser = true;
      assert.ok(Array.isArray(m.content) && m.content.length, `user message ${i} needs content parts`);
      for (const p of m.content) {
        if (p.type === 'text') {
          assert.deepEqual(Object.keys(p).sort(), ['text', 'type']);
          assert.equal(typeof p.text, 'string');
        } else if (p.type === 'image_url') {
          assert.deepEqual(Object.keys(p).sort(), ['image_url', 'type']);
          keysWithin(p.image_url, ['url', 'detail'], 'image_url');
          assert.match(p.image_url.url, /^data:image\/[a-z.+-]+;base64,/, 'image_url must be a data URL');
          b64(p.image_url.url.split(',')[1]);
        } else if (p.type === 'input_audio') {
          assert.ok(['wav', 'mp3'].includes(p.input_audio.format));
          b64(p.input_audio.data);
        } else {
          assert.fail(`unknown content part type ${p.type}`);
        }
      }
    }
  });
  assert.deepEqual(answered, ids, 'every tool call answered once, in order');
}

/** OpenAI Responses: function_call_output {call_id, output string}; user messages of input_text / input_image. */
export function checkOpenAIResponses(items, ids) {
  const outputs = [];
  items.forEach((it, i) => {
    if (it.type === 'function_call_output') {
      assert.equal(typeof it.call_id, 'string');
      assert.equal(typeof it.output, 'string');
      outputs.push(it.call_id);
    } else if (it.type === 'message') {
      assert.equal(it.role, 'user');
      for (const p of it.content) {
        assert.ok(['input_text', 'input_image'].includes(p.type), p.type);
        if (p.type === 'input_image') assert.match(p.image_url, /^data:image\//);
      }
    } else {
      assert.fail(`item ${i} has the unknown type ${it.type}`);
    }
  });
  assert.deepEqual(outputs, ids);
}

/**
 * Anthropic Messages: the answer to tool_use blocks is one user message whose content starts with
 * tool_result blocks {tool_use_id, content, is_error?}; images are {type: image, source: {type: base64,
 * media_type, data}} with a JPEG/PNG/GIF/WebP media type.
 */
export function checkAnthropic(messages, ids) {
  assert.equal(messages.length, 1, 'the answer to tool_use blocks is one user message');
  const [m] = messages;
  assert.equal(m.role, 'user');
  assert.ok(Array.isArray(m.content));
  const first = m.content.slice(0, ids.length);
  first.forEach((b, i) => {
    assert.equal(b.type, 'tool_result', `block ${i}: tool_result blocks must come first`);
    keysWithin(b, ['type', 'tool_use_id', 'content', 'is_error'], `block ${i}`);
    assert.ok(typeof b.content === 'string' || Array.isArray(b.content));
  });
  assert.deepEqual(first.map((b) => b.tool_use_id), ids);
  for (const b of m.content.slice(ids.length)) {
    assert.ok(['text', 'image'].includes(b.type), b.type);
    if (b.type === 'image') {
      assert.equal(b.source.type, 'base64');
      assert.ok(ANTHROPIC_IMAGE_TYPES.includes(b.source.media_type));
      b64(b.source.data);
    }
  }
}

/** Gemini: contents of role user|model with parts; functionResponse {name, response object}; inlineData {mimeType, data}. */
export function checkGemini(contents, ids) {
  const answered = [];
  for (const c of contents) {
    assert.ok(['user', 'model'].includes(c.role));
    assert.ok(Array.isArray(c.parts) && c.parts.length);
    for (const p of c.parts) {
      assert.equal(Object.keys(p).length, 1, 'a part holds exactly one kind of data');
      if (p.functionResponse) {
        assert.equal(typeof p.functionResponse.name, 'string');
        assert.ok(p.functionResponse.response && typeof p.functionResponse.response === 'object');
        answered.push(p.functionResponse.id);
      } else if (p.inlineData) {
        assert.deepEqual(Object.keys(p.inlineData).sort(), ['data', 'mimeType']);
        b64(p.inlineData.data);
      } else {
        assert.equal(typeof p.text, 'string');
      }
    }
  }
  assert.deepEqual(answered, ids);
}
