// The toolbus stdio protocol (docs/plugins.md §3) for Node hosts and plugins: NDJSON on stdin and
// stdout, calls run concurrently, cancel aborts a call's AbortSignal, progress/send/ask while it runs.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createInterface } from 'node:readline';

const STOP_GRACE_MS = 1000;

// The running call of each async context. Kept on globalThis so that every copy of this module in a
// process (a host's, and one a plugin installed in its own node_modules) sees the same calls.
const CALLS = Symbol.for('toolbus.plugin.currentCall');
const currentCalls = globalThis[CALLS] ?? (globalThis[CALLS] = new AsyncLocalStorage());

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const MAX_TRACESTATE_CHARS = 512;

/**
 * A W3C trace context from wire values, or null when `traceparent` is missing or not a W3C one (version
 * ff, all-zero ids, upper case); a `tracestate` that is not printable ASCII of at most 512 characters is
 * dropped. The result is frozen: `traceparent`, `tracestate` (or undefined), `traceId`, `spanId`,
 * `sampled`, and `headers()` for the HTTP headers (or an OpenTelemetry `propagation.extract` carrier).
 */
export function parseTrace(traceparent, tracestate) {
  if (typeof traceparent !== 'string' || traceparent.length > 256 || !TRACEPARENT.test(traceparent.slice(0, 55))) {
    return null;
  }
  // version 00 has exactly these fields; a later one may append more after a dash
  if (traceparent.length > 55 && (traceparent.startsWith('00') || traceparent[55] !== '-')) return null;
  if (traceparent.startsWith('ff') || /^0+$/.test(traceparent.slice(3, 35)) || /^0+$/.test(traceparent.slice(36, 52))) {
    return null;
  }
  const state = typeof tracestate === 'string' && tracestate.length > 0 && tracestate.length <= MAX_TRACESTATE_CHARS
    && /^[\x20-\x7e]*$/.test(tracestate) ? tracestate : undefined;
  return Object.freeze({
    traceparent,
    tracestate: state,
    traceId: traceparent.slice(3, 35),
    spanId: traceparent.slice(36, 52),
    sampled: (parseInt(traceparent.slice(53, 55), 16) & 1) === 1,
    headers: () => (state ? { traceparent, tracestate: state } : { traceparent }),
  });
}

/** The call running in this async context (a host's `execute` and everything it awaits), or undefined. */
export function currentCall() {
  return currentCalls.getStore();
}

/** The trace context of the call running in this async context, or null outside a call or without one. */
export function currentTrace() {
  return currentCalls.getStore()?.trace ?? null;
}

/** Logs go to stderr: stdout is the protocol channel. */
export function makeLogger(prefix) {
  const line = (level) => (...parts) => {
    const text = parts.map((p) => (typeof p === 'string' ? p : p instanceof Error ? p.stack : safeJson(p))).join(' ');
    process.stderr.write(`${level} ${prefix}: ${text}\n`);
  };
  return { debug: line('DEBUG'), info: line('INFO'), warn: line('WARN'), error: line('ERROR') };
}

function safeJson(value) {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** An error a handler throws to answer its call with just this message. */
export class PluginError extends Error {}

/**
 * Serves the protocol until stdin ends or deactivate arrives.
 *
 * @param {object} host
 * @param {(params: object) => Promise<object[]>} host.activate the tool declarations
 * @param {(call: Call) => Promise<object>} host.execute the answer of one call, without its id
 * @param {() => Promise<void>} [host.deactivate]
 */
export function serve(host, { input = process.stdin, output = process.stdout } = {}) {
  // a plugin's console.log must not corrupt the protocol channel: it goes to stderr
  for (const level of ['log', 'info', 'debug']) console[level] = console.error;
  const calls = new Map();
  const pending = new Map();
  let nextRid = 1;
  let stopping = false;
  let activated = Promise.resolve();

  const write = (message) => output.write(`${JSON.stringify(message)}\n`);

  const request = (method, params) => new Promise((resolve) => {
    const rid = `r${nextRid++}`;
    pending.set(rid, resolve);
    write({ method, params: { ...params, rid } });
  });

  class Call {
    constructor(id, toolName, args, context) {
      this.id = id;
      this.toolName = toolName;
      this.args = args;
      this.context = context;
      this.controller = new AbortController();
      this.done = false;
    }

    get signal() {
      return this.controller.signal;
    }

    /** The call's W3C trace context (toolbus's span of this call), or null when toolbus sent none. */
    get trace() {
      if (this.parsedTrace === undefined) this.parsedTrace = parseTrace(this.context.traceparent, this.context.tracestate);
      return this.parsedTrace;
    }

    /** Sends a chat message now; true when the host accepted it. */
    async send(content) {
      if (this.done) return false;
      const reply = await request('send', { id: this.id, content });
      return reply.ok === true;
    }

    sendText(text) {
      return this.send([{ type: 'text', text: String(text) }]);
    }

    /** Asks the user: {action: accept|decline|cancel|expired, content} or {ok: false, error}. */
    ask(message, schema, timeoutMs) {
      const params = { id: this.id, message: String(message) };
      if (schema !== undefined) params.schema = schema;
      if (timeoutMs !== undefined) params.timeoutMs = timeoutMs;
      return request('ask', params);
    }

    progress(progress, total, message) {
      const params = { id: this.id, progress };
      if (total !== undefined && total !== null) params.total = total;
      if (message !== undefined && message !== null) params.message = String(message);
      write({ method: 'progress', params });
    }
  }

  const finish = (call, answer) => {
    if (call.done) return;
    call.done = true;
    calls.delete(call.id);
    write({ ...answer, id: call.id });
  };

  const run = async (call) => {
    let answer;
    try {
      await activated;
      answer = (await currentCalls.run(call, () => host.execute(call))) ?? {};
    } catch (e) {
      answer = { error: errorText(e) };
    }
    finish(call, answer);
  };

  const startCall = (id, params) => {
    let args = params.input;
    if (typeof args === 'string') {
      try {
        args = args.trim() ? JSON.parse(args) : {};
      } catch (e) {
        write({ id, error: `input is not JSON: ${e.message}` });
        return;
      }
    }
    if (args === undefined || args === null) args = {};
    if (typeof args !== 'object' || Array.isArray(args)) {
      write({ id, error: 'input must be a JSON object' });
      return;
    }
    const call = new Call(id, String(params.toolName ?? ''), args, params.context ?? {});
    calls.set(id, call);
    run(call);
  };

  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await activated.catch(() => {});
    const inFlight = [...calls.values()];
    if (inFlight.length) {
      await Promise.race([
        new Promise((r) => setTimeout(r, STOP_GRACE_MS)),
        Promise.all(inFlight.map((c) => new Promise((r) => {
          const poll = setInterval(() => { if (c.done) { clearInterval(poll); r(); } }, 10);
        }))),
      ]);
      for (const c of calls.values()) c.controller.abort(abortReason('shutdown'));
    }
    try {
      await host.deactivate?.();
    } catch (e) {
      process.stderr.write(`WARN deactivate failed: ${errorText(e)}\n`);
    }
    process.exit(0);
  };

  const dispatch = async (message) => {
    const { method, id } = message;
    const params = message.params ?? {};
    switch (method) {
      case 'activate':
        activated = (async () => {
          try {
            write({ id, tools: await host.activate(params) });
          } catch (e) {
            write({ id, error: `activation failed: ${errorText(e)}` });
          }
        })();
        break;
      case 'execute_tool':
        startCall(id, params);
        break;
      case 'cancel': {
        const call = calls.get(params.id);
        if (call) {
          const reason = String(params.reason ?? 'cancelled');
          call.controller.abort(abortReason(reason));
          finish(call, { error: `cancelled: ${reason}` });
        }
        break;
      }
      case 'configure':
        // the application's configuration changed (config null: it gives none any more)
        if (typeof host.configure === 'function') {
          activated.then(() => host.configure(params.config ?? null, String(params.version ?? '')))
            .catch((e) => console.error(`configure failed: ${errorText(e)}`));
        }
        break;
      case 'reply': {
        const resolve = pending.get(params.rid);
        if (resolve) {
          pending.delete(params.rid);
          resolve(params);
        }
        break;
      }
      case 'deactivate':
        await stop();
        break;
      default:
        if (id !== undefined) write({ id, error: `unknown method: ${method}` });
    }
  };

  const lines = createInterface({ input, crlfDelay: Infinity });
  lines.on('line', (line) => {
    if (!line.trim()) return;
    let message;
    try {
      message = JSON.parse(line);
    } catch (e) {
      process.stderr.write(`WARN ignoring a line that is not JSON: ${e.message}\n`);
      return;
    }
    if (!message || typeof message !== 'object' || Array.isArray(message)) {
      process.stderr.write('WARN ignoring a line that is not a JSON object\n');
      return;
    }
    dispatch(message);
  });
  lines.on('close', () => stop());
  process.on('unhandledRejection', (e) => process.stderr.write(`WARN unhandled rejection: ${errorText(e)}\n`));
  process.on('uncaughtException', (e) => process.stderr.write(`ERROR uncaught exception: ${errorText(e)}\n`));
}

export function errorText(e) {
  if (e instanceof Error) return e.message || e.name;
  if (typeof e === 'string') return e;
  return safeJson(e);
}

/** OpenClaw/MCP content parts ({type:'text'|'image', …}) as a toolbus answer. */
export function contentAnswer(content) {
  const texts = [];
  const items = [];
  for (const part of content) {
    if (!part || typeof part !== 'object') continue;
    if (part.type === 'text') {
      texts.push(String(part.text ?? ''));
    } else if (part.type === 'image' || part.type === 'audio') {
      items.push({ type: part.type, data: part.data ?? '', mime_type: part.mimeType ?? part.mime_type ?? '' });
    } else if (part.type === 'resource' && part.resource) {
      items.push({ type: 'resource', uri: part.resource.uri ?? '', text: part.resource.text ?? '',
        mime_type: part.resource.mimeType ?? '' });
    } else if (part.type === 'resource_link') {
      items.push({ type: 'resource_link', uri: part.uri ?? '', name: part.name ?? '' });
    }
  }
  const answer = { result: texts.join('\n') };
  if (items.length) answer.content_items = items;
  return answer;
}

/** Loads a module file fresh (a query string defeats the ESM cache, for reloads). */
export async function importFresh(file, version = Date.now()) {
  const { pathToFileURL } = await import('node:url');
  return import(`${pathToFileURL(file).href}?v=${version}`);
}

/**
 * What `signal.reason` is after a cancel: a DOMException whose message is toolbus's reason
 * ("timeout", the bot's cancel text, "cancelled", "shutdown"), named as AbortSignal.timeout() and
 * abort() name theirs: TimeoutError for a timeout, AbortError otherwise.
 */
export function abortReason(reason) {
  return new DOMException(reason, reason === 'timeout' ? 'TimeoutError' : 'AbortError');
}
