// Write toolbus stdio plugins in Node (no npm packages), registerTool-style:
//
//   import { createPlugin } from 'toolbus-plugin';   // npm install ./tool-sources/hosts/node
//   const plugin = createPlugin();
//   plugin.registerTool({ name: 'add', description: 'Adds', parameters: {...},
//     async execute(args, ctx) { return String(args.a + args.b); } });
//   plugin.run();
//
// `ctx` carries `signal` (aborted on cancel or timeout), `context` (the caller), `send(textOrParts)`,
// `ask(message, schema, timeoutMs)`, `progress(n, total, message)` and `config` (the plugin's configuration:
// toolbus.yaml plugins.<id>.config, else plugin.json's config; also `plugin.config`, kept current). A string result is the text,
// `{ content: [...] }` is read as OpenClaw/MCP content parts, any other value is structured data.
import { contentAnswer, makeLogger, serve } from './stdio.mjs';

export { PluginError } from './stdio.mjs';

const ATTRIBUTES = ['optional', 'dangerous', 'sideEffecting', 'risk', 'groups', 'requiredPermission', 'channels',
  'timeoutMs', 'visibility', 'cacheable', 'maxResultChars'];

export function createPlugin() {
  const tools = new Map();
  const logger = makeLogger(`plugin.${process.env.TOOLBUS_PLUGIN_ID ?? 'node'}`);
  const own = () => (process.env.TOOLBUS_PLUGIN_CONFIG ? JSON.parse(process.env.TOOLBUS_PLUGIN_CONFIG) : {});
  let config = own();
  return {
    logger,
    get config() {
      return config;
    },
    registerTool(tool) {
      if (!tool || typeof tool.name !== 'string' || typeof tool.execute !== 'function') {
        throw new TypeError('registerTool needs { name, execute }');
      }
      if (tools.has(tool.name)) throw new Error(`tool ${tool.name} is registered twice`);
      tools.set(tool.name, tool);
    },
    run() {
      serve({
        async activate(params = {}) {
          if (params.config && typeof params.config === 'object') config = params.config;
          return [...tools.values()].map((t) => {
            const d = { name: t.name, description: String(t.description ?? ''),
              inputSchema: JSON.parse(JSON.stringify(t.parameters ?? t.inputSchema ?? { type: 'object', properties: {} })) };
            for (const key of ATTRIBUTES) if (t[key] !== undefined) d[key] = t[key];
            return d;
          });
        },
        async execute(call) {
          const tool = tools.get(call.toolName);
          if (!tool) return { error: `unknown tool: ${call.toolName}` };
          const ctx = {
            signal: call.signal,
            context: call.context,
            send: (m) => call.send(typeof m === 'string' ? [{ type: 'text', text: m }] : m),
            ask: (message, schema, timeoutMs) => call.ask(message, schema, timeoutMs),
            progress: (n, total, message) => call.progress(n, total, message),
            config,
          };
          const value = await tool.execute(call.args, ctx);
          if (value === undefined || value === null) return {};
          if (typeof value === 'string') return { result: value };
          if (Array.isArray(value?.content)) return contentAnswer(value.content);
          return { result: value };
        },
        configure(next) {
          config = next && typeof next === 'object' ? next : own();
        },
      });
    },
  };
}
