// Runs a ChatAI custom-tools folder (its data/tools: one tool module per *.js / *.mjs file) as a toolbus
// stdio plugin: `toolbus-chatai-host TOOLS_DIR` (npm package), `node --experimental-detect-module
// ../chatai/host.mjs TOOLS_DIR` (what toolbus starts). The folder is watched: changed, added and removed
// files are loaded again without a restart (ChatAI's autoReload).
import { readdirSync, statSync, watch } from 'node:fs';
import { join, resolve } from 'node:path';
import { errorText, importFresh, makeLogger, serve } from './stdio.mjs';

const folder = resolve(process.argv[2] ?? '.');
const log = makeLogger('chatai');
const HANDLER_KEYS = ['handler', 'run', 'execute', 'func'];
const ATTRIBUTES = ['optional', 'dangerous', 'sideEffecting', 'risk', 'groups', 'requiredPermission', 'channels',
  'timeoutMs', 'visibility', 'cacheable', 'maxResultChars'];

let tools = new Map();

function handlerOf(x) {
  for (const key of HANDLER_KEYS) if (typeof x[key] === 'function') return x[key].bind(x);
  return null;
}

/** The tools one exported value declares, in ChatAI's shapes. */
export function normalize(value, file) {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap((v) => normalize(v, file));
  if (typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value))) {
    return normalize(new value(), file);
  }
  if (typeof value !== 'object') return [];
  const fn = value.type === 'function' && value.function ? value.function
    : value.function && typeof value.function === 'object' ? value.function : null;
  const run = handlerOf(value);
  const name = fn?.name ?? value.name;
  if (typeof name !== 'string' || !run) {
    log.warn(`${file}: an export is not a tool (it needs a name and a handler/run function); skipped`);
    return [];
  }
  const tool = {
    name,
    description: String(fn?.description ?? value.description ?? ''),
    inputSchema: fn?.parameters ?? value.inputSchema ?? value.parameters ?? { type: 'object', properties: {} },
    run,
    file,
  };
  for (const key of ATTRIBUTES) if (value[key] !== undefined) tool[key] = value[key];
  return [tool];
}

async function loadAll() {
  const next = new Map();
  let files = [];
  try {
    files = readdirSync(folder).filter((f) => /\.(m?js)$/.test(f)).sort();
  } catch (e) {
    log.error(`cannot read ${folder}: ${errorText(e)}`);
  }
  for (const f of files) {
    const file = join(folder, f);
    let mod;
    try {
      mod = await importFresh(file, statSync(file).mtimeMs);
    } catch (e) {
      log.error(`${f} does not load and is skipped: ${errorText(e)}`);
      continue;
    }
    const exported = mod.default !== undefined ? [mod.default]
      : Object.values(mod).filter((v) => v && (typeof v === 'object' || typeof v === 'function'));
    const found = exported.flatMap((v) => normalize(v, f));
    if (found.length === 0) log.warn(`${f} exports no tool`);
    for (const t of found) {
      if (next.has(t.name)) log.warn(`${f}: tool ${t.name} is already defined in ${next.get(t.name).file}; skipped`);
      else next.set(t.name, t);
    }
  }
  return next;
}

function declaration(t) {
  const d = { name: t.name, description: t.description, inputSchema: JSON.parse(JSON.stringify(t.inputSchema)) };
  for (const key of ATTRIBUTES) if (t[key] !== undefined) d[key] = t[key];
  return d;
}

function contentOf(message) {
  const parts = Array.isArray(message) ? message : [message];
  return parts.map((p) => {
    if (typeof p === 'string') return { type: 'text', text: p };
    if (p?.type === 'text') return { type: 'text', text: String(p.text ?? p.data?.text ?? '') };
    if (p?.type === 'image') {
      return { type: 'image', mimeType: p.mimeType ?? 'image/png', data: String(p.data ?? p.base64 ?? p.file ?? '') };
    }
    return { type: 'text', text: typeof p === 'object' ? JSON.stringify(p) : String(p) };
  });
}

function toolContext(call) {
  const c = call.context;
  const reply = (message) => call.send(contentOf(message));
  const event = {
    user_id: c.userId,
    group_id: c.groupId,
    platform: c.platform,
    message_type: c.groupId ? 'group' : 'private',
    isGroup: Boolean(c.groupId),
    isMaster: c.permission === 'master',
    sender: { user_id: c.userId, role: c.permission },
    message: c.message,
    msg: typeof c.message?.text === 'string' ? c.message.text : undefined,
    reply,
  };
  const unsupported = new Proxy({}, {
    get: (_t, key) => async () => { throw new Error(`context.getApi().${String(key)} is not supported under toolbus`); },
  });
  return {
    message: c.message,
    userId: c.userId,
    groupId: c.groupId,
    signal: call.signal,
    // toolbus's addition: the folder's configuration (toolbus.yaml plugins.<id>.config, else plugin.json's)
    config,
    getEvent: () => event,
    isMaster: () => c.permission === 'master',
    getApi: () => unsupported,
    getBot: () => null,
    reply,
    send: reply,
    sendMessage: reply,
  };
}

/** A ChatAI return value as a toolbus answer. */
export function answerOf(value) {
  if (value === undefined || value === null) return {};
  if (typeof value === 'string') return { result: value };
  if (typeof value !== 'object') return { result: String(value) };
  if (value.error === true || (typeof value.error === 'string' && value.success !== true)) {
    return { error: String(value.message ?? (typeof value.error === 'string' ? value.error : 'tool failed')) };
  }
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === 'text') return { result: String(value.text) };
  // ChatAI shows `text` to the model; the other fields stay as structured data
  if (typeof value.text === 'string' && value.content === undefined) return { result: { ...value, content: value.text } };
  return { result: value };
}

let config = {};
function ownConfig() {
  return process.env.TOOLBUS_PLUGIN_CONFIG ? JSON.parse(process.env.TOOLBUS_PLUGIN_CONFIG) : {};
}

async function activate(params = {}) {
  config = params.config && typeof params.config === 'object' ? params.config : ownConfig();
  tools = await loadAll();
  watchFolder();
  return [...tools.values()].map(declaration);
}

async function execute(call) {
  const tool = tools.get(call.toolName);
  if (!tool) return { error: `unknown tool: ${call.toolName}` };
  try {
    return answerOf(await tool.run(call.args, toolContext(call)));
  } catch (e) {
    return { error: errorText(e) };
  }
}

let timer = null;
function watchFolder() {
  if (process.env.TOOLBUS_CHATAI_WATCH === '0') return;
  try {
    watch(folder, { persistent: false }, () => {
      clearTimeout(timer);
      timer = setTimeout(reload, 100);
    });
  } catch (e) {
    log.warn(`cannot watch ${folder}: ${errorText(e)}`);
  }
}

async function reload() {
  const before = JSON.stringify([...tools.values()].map(declaration));
  tools = await loadAll();
  const now = [...tools.values()].map(declaration);
  log.info(`reloaded ${folder}: ${[...tools.keys()].join(', ') || 'no tools'}`);
  if (JSON.stringify(now) !== before) {
    process.stdout.write(`${JSON.stringify({ method: 'tools_changed', params: { tools: now } })}\n`);
  }
}

/** toolbus.yaml's config changed: the next calls' context.config is the new one (null: the folder's own). */
function configure(next) {
  config = next && typeof next === 'object' ? next : ownConfig();
  log.info('configuration updated');
}

serve({ activate, execute, configure });
