// Runs an OpenClaw plugin folder as a toolbus stdio plugin: `toolbus-openclaw-host PLUGIN_DIR` (npm package),
// `node --import ./register-shims.mjs ../openclaw/host.mjs PLUGIN_DIR` (what toolbus starts).
// The entry module's `export default function (api)` (or `register(api)`) registers agent tools with
// `api.registerTool(tool, { optional })`; each call runs `tool.execute(toolCallId, params, signal)`.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { contentAnswer, errorText, importFresh, makeLogger, serve } from './stdio.mjs';

const folder = resolve(process.argv[2] ?? '.');
const log = makeLogger('openclaw');

function readJson(file) {
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
}

/** The plugin's manifest facts: id, and the entry module. */
export function describe(dir) {
  const manifest = readJson(join(dir, 'openclaw.plugin.json')) ?? {};
  const pkg = readJson(join(dir, 'package.json')) ?? {};
  const claw = pkg.openclaw ?? {};
  const entries = [...(claw.extensions ?? []), ...(manifest.main ? [manifest.main] : []), ...(pkg.main ? [pkg.main] : []),
    'index.mjs', 'index.js'];
  const entry = entries.map((e) => join(dir, e)).find((f) => existsSync(f));
  return { id: manifest.id ?? claw.id ?? pkg.name ?? basename(dir), entry, manifest };
}

function pluginConfig(params) {
  if (params.config && typeof params.config === 'object') return params.config;
  if (process.env.TOOLBUS_PLUGIN_CONFIG) return JSON.parse(process.env.TOOLBUS_PLUGIN_CONFIG);
  return {};
}

// toolbus attributes a tool object may carry besides OpenClaw's own keys
const ATTRIBUTES = ['dangerous', 'sideEffecting', 'risk', 'groups', 'requiredPermission', 'channels', 'timeoutMs',
  'visibility', 'cacheable', 'maxResultChars'];

const tools = new Map();
let api = null;
let defaults = () => ({});

async function activate(params) {
  const { id, entry } = describe(folder);
  if (!entry) throw new Error(`no entry module in ${folder} (package.json openclaw.extensions, main, or index.mjs)`);
  const config = pluginConfig(params);
  defaults = () => pluginConfig({});
  const unsupported = (what) => () => log.warn(`${what} is not supported by toolbus; ignored`);
  const pluginLog = makeLogger(`plugin.${params.pluginId ?? id}`);
  api = {
    id: params.pluginId ?? id,
    name: params.pluginId ?? id,
    config,
    pluginConfig: config,
    logger: pluginLog,
    resolvePath: (p) => resolve(folder, p),
    registerTool(tool, opts = {}) {
      const t = typeof tool === 'function' ? tool({ config }) : tool;
      if (!t || typeof t.name !== 'string' || typeof t.execute !== 'function') {
        pluginLog.warn('registerTool needs {name, execute}; skipped');
        return;
      }
      if (tools.has(t.name)) {
        pluginLog.warn(`tool ${t.name} registered twice; the first is kept`);
        return;
      }
      tools.set(t.name, { tool: t, optional: opts.optional === true });
    },
    registerHook: unsupported('registerHook'),
    registerCommand: unsupported('registerCommand'),
    registerService: unsupported('registerService'),
    registerChannel: unsupported('registerChannel'),
    registerProvider: unsupported('registerProvider'),
    registerCli: unsupported('registerCli'),
    registerGatewayMethod: unsupported('registerGatewayMethod'),
    on: unsupported('api.on'),
  };
  const mod = await importFresh(entry);
  const exported = mod.default ?? mod;
  const register = typeof exported === 'function' ? exported
    : typeof exported?.register === 'function' ? exported.register.bind(exported)
      : typeof exported?.activate === 'function' ? exported.activate.bind(exported)
        : typeof mod.register === 'function' ? mod.register : null;
  if (!register) throw new Error(`${entry} exports no plugin function (export default function (api) or register(api))`);
  await register(api);
  if (tools.size === 0) log.warn(`${entry} registered no tools`);
  return [...tools.values()].map(({ tool, optional }) => {
    const declared = {
      name: tool.name,
      description: String(tool.description ?? tool.label ?? ''),
      inputSchema: JSON.parse(JSON.stringify(tool.parameters ?? { type: 'object', properties: {} })),
    };
    if (optional) declared.optional = true;
    for (const key of ATTRIBUTES) if (tool[key] !== undefined) declared[key] = tool[key];
    return declared;
  });
}

async function execute(call) {
  const entry = tools.get(call.toolName);
  if (!entry) return { error: `unknown tool: ${call.toolName}` };
  const onUpdate = (partial) => {
    const text = (partial?.content ?? []).filter((p) => p?.type === 'text').map((p) => p.text).join('\n');
    call.progress(0, null, text || undefined);
  };
  const id = call.context.toolCallId ?? String(call.id);
  let result;
  try {
    result = await entry.tool.execute(id, call.args, call.signal, onUpdate);
  } catch (e) {
    return { error: errorText(e) };
  }
  if (result === undefined || result === null) return {};
  if (typeof result === 'string') return { result };
  if (Array.isArray(result?.content)) return contentAnswer(result.content);
  return { result };
}

/**
 * toolbus.yaml's config changed: api.config and api.pluginConfig become the new one (null: the plugin's
 * own), read by tools at their next call; the plugin is not restarted.
 */
function configure(next) {
  if (!api) return;
  const config = next && typeof next === 'object' ? next : defaults();
  api.config = config;
  api.pluginConfig = config;
  log.info('configuration updated');
}

serve({ activate, execute, configure });
