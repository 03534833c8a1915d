import { randomUUID } from 'node:crypto';
import { BadEventError, RejectedError, ToolbusError, TransportError, TurnTimeoutError } from './errors.js';
import { SeenKeys, bind, dedupKey } from './events.js';
import { Turn } from './turn.js';

const CALLBACKS = { approval_request: 'onApprovalRequest', input_request: 'onInputRequest', send_message: 'onSendMessage', tool_progress: 'onProgress', error: 'onError' };

/** Accepts a toolbus call, an OpenAI tool_calls item, an OpenAI Responses function_call or an Anthropic tool_use block. */
// A `caller` (Anthropic's {type: 'code_execution_20250825', tool_id}, OpenAI's {type: 'program', caller_id}
// or toolbus's {type: 'programmatic', id}) is passed on unchanged; toolbus reads each of these shapes.
function callItem(call) {
  if (!call || typeof call !== 'object') throw new TypeError('a call must be an object');
  let item;
  if (call.type === 'tool_use') item = { tool_call_id: call.id, name: call.name, arguments: call.input ?? {} };
  else if (call.type === 'function_call' && call.call_id) item = { tool_call_id: call.call_id, name: call.name, arguments: call.arguments };
  else return call;
  if (call.caller != null) item.caller = call.caller;
  return item;
}

/** `event` with the W3C trace context fields (`tracestate` only beside a `traceparent`). */
function traced(event, { traceparent, tracestate }) {
  if (traceparent) {
    event.traceparent = traceparent;
    if (tracestate) event.tracestate = tracestate;
  }
  return event;
}

/**
 * A connection to toolbus over one transport, chosen by the URL: http(s):// (gateway HTTP + SSE),
 * ws(s):// (gateway WebSocket /v1/ws), redis:// (Redis Streams), kafka://host:port[,host:port], or
 * stdio: (a sidecar started with `command`).
 */
export class Client {
  constructor(url, options = {}) {
    this.url = url;
    this.options = options;
    this.timeoutMs = options.timeoutMs ?? 300000;
    this.seen = new SeenKeys(options.dedupCapacity ?? 10000);
    this.pending = new Map();
    this.requests = new Map();
    this.duplicatesDropped = 0;
    this.transport = null;
  }

  async connect() {
    const scheme = this.url.split(':', 1)[0].toLowerCase();
    const deliver = (e) => this.deliver(e);
    const o = this.options;
    if (scheme === 'http' || scheme === 'https') {
      const { HttpTransport } = await import('./transports/http.js');
      this.transport = new HttpTransport(this.url, o.token, deliver, { answerTimeoutMs: o.answerTimeoutMs });
    } else if (scheme === 'ws' || scheme === 'wss') {
      const { WebSocketTransport } = await import('./transports/ws.js');
      this.transport = new WebSocketTransport(this.url, o.token, deliver, () => this.inFlight(), { reconnect: o.reconnect ?? true });
    } else if (scheme === 'redis' || scheme === 'rediss') {
      const { RedisTransport } = await import('./transports/redis.js');
      this.transport = new RedisTransport(this.url, deliver, { callsStream: o.callsStream, resultsKey: o.resultsKey });
    } else if (scheme === 'kafka') {
      const { KafkaTransport } = await import('./transports/kafka.js');
      const brokers = this.url.slice('kafka://'.length).split(',').filter(Boolean);
      this.transport = new KafkaTransport(brokers, deliver, { callsTopic: o.callsTopic, resultsTopic: o.resultsTopic, groupId: o.groupId });
    } else if (scheme === 'stdio') {
      const { StdioTransport } = await import('./transports/stdio.js');
      this.transport = new StdioTransport(o.command, deliver, o.env);
    } else {
      throw new TypeError(`unsupported toolbus URL ${this.url} (http, https, ws, wss, redis, kafka or stdio:)`);
    }
    await this.transport.start();
    return this;
  }

  async close() {
    for (const p of this.pending.values()) p.reject(new TransportError('the client was closed'));
    this.pending.clear();
    await this.transport?.close();
  }

  /**
   * Runs the calls of one assistant turn; resolves with its Turn once turn_completed arrived.
   * `options.traceparent` / `options.tracestate` (W3C Trace Context) continue the bot core's trace
   * through toolbus: every event comes back with the trace context of its span (`event.traceparent`).
   * Per-turn callbacks in `options` replace the client's for this turn.
   */
  async runTurn(streamId, calls, options = {}) {
    if (typeof streamId !== 'string' || !streamId.trim()) throw new TypeError('streamId must be a non-blank string');
    const turnId = options.turnId ?? `js-${randomUUID()}`;
    const event = { type: 'tool_calls', stream_id: streamId, turn_id: turnId, calls: calls.map(callItem) };
    if (options.context) event.context = { ...options.context };
    if (options.message !== undefined) event.message = options.message;
    traced(event, options);
    const key = `${streamId}\u0000${turnId}`;
    if (this.pending.has(key)) throw new TypeError(`turn ${turnId} of ${streamId} is already running on this client`);
    const callbacks = {};
    for (const [type, name] of Object.entries(CALLBACKS)) callbacks[type] = options[name] ?? this.options[name];
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    let timer;
    const done = new Promise((resolve, reject) => {
      this.pending.set(key, { event, turn: new Turn(streamId, turnId), resolve, reject, callbacks });
      timer = setTimeout(() => reject(new TurnTimeoutError(`no turn_completed for turn ${turnId} of ${streamId} within ${timeoutMs} ms`)), timeoutMs);
    });
    done.catch(() => {}); // settled through the race below or the return; never an unhandled rejection
    try {
      // the turn's timeout bounds the sending too
      await Promise.race([this.transport.sendTurn(event), done]);
      return await done;
    } finally {
      clearTimeout(timer);
      this.pending.delete(key);
      this.transport.release?.(streamId);
    }
  }

  /**
   * Cancels one call, every unfinished call of a turn, or (no turnId) every turn of the stream.
   * `traceparent` / `tracestate` (W3C Trace Context of the sender's span): toolbus's span of the cancel
   * joins that trace.
   */
  cancel(streamId, { turnId, toolCallId, reason, traceparent, tracestate } = {}) {
    const e = { type: 'cancel', stream_id: streamId };
    if (turnId) e.turn_id = turnId;
    if (toolCallId) e.tool_call_id = toolCallId;
    if (reason) e.reason = reason;
    return this.transport.sendControl(traced(e, { traceparent, tracestate }));
  }

  /**
   * Answers an approval_request: 'approve', 'deny' or 'approve_session'; for one call only (toolCallId),
   * with the user's edit of its arguments (approve only) or a message the model reads (deny only, at most
   * 2,000 characters); traceparent / tracestate: the answering span's trace context.
   */
  respondApproval(request, decision, { toolCallId, arguments: args, message, traceparent, tracestate } = {}) {
    if (!['approve', 'deny', 'approve_session'].includes(decision)) throw new TypeError('decision must be approve, deny or approve_session');
    if (args !== undefined && (decision === 'deny' || args === null || typeof args !== 'object' || Array.isArray(args))) {
      throw new TypeError('arguments must be an object, sent with approve or approve_session');
    }
    if (message !== undefined && (decision !== 'deny' || typeof message !== 'string' || message.length > 2000)) {
      throw new TypeError('message goes with deny only, a string of at most 2000 characters');
    }
    if (toolCallId !== undefined && !(request.calls || []).some((c) => c.tool_call_id === toolCallId)) {
      throw new TypeError(`toolCallId '${toolCallId}' is not a call of this request`);
    }
    const e = { type: 'approval_response', stream_id: request.stream_id, approval_id: request.approval_id, decision };
    if (toolCallId !== undefined) e.tool_call_id = toolCallId;
    if (args !== undefined) e.arguments = args;
    if (message !== undefined) e.message = message;
    return this.transport.sendControl(traced(e, { traceparent, tracestate }));
  }

  /** Answers an input_request: 'accept' (with content), 'decline' or 'cancel' (with the answering span's trace context). */
  respondInput(request, action, content, { traceparent, tracestate } = {}) {
    if (!['accept', 'decline', 'cancel'].includes(action)) throw new TypeError('action must be accept, decline or cancel');
    const e = { type: 'input_response', stream_id: request.stream_id, input_id: request.input_id, action };
    if (content !== undefined) e.content = content;
    return this.transport.sendControl(traced(e, { traceparent, tracestate }));
  }

  /**
   * The tool definitions this session may see (format openai, anthropic or mcp). `text`, the
   * conversation text, lets toolbus's dispatch (when configured) narrow them to the tool groups the
   * text needs, never beyond what the policy allows.
   */
  async listTools(streamId, { context, format = 'openai', text, timeoutMs = 30000 } = {}) {
    const requestId = `js-${randomUUID()}`;
    const e = { type: 'list_tools', stream_id: streamId, request_id: requestId, format };
    if (context) e.context = { ...context };
    if (text) e.text = text;
    let timer;
    const answer = new Promise((resolve, reject) => {
      this.requests.set(requestId, resolve);
      timer = setTimeout(() => reject(new TurnTimeoutError(`no tools answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await this.transport.request(e);
      return (await answer).tools;
    } finally {
      clearTimeout(timer);
      this.requests.delete(requestId);
      this.transport.release?.(streamId);
    }
  }

  /**
   * The skill catalogue and the skill texts to inject now (the `skills` event), including the ones
   * load_skill loaded on this stream (documents of reason 'loaded': re-inject them after compressing
   * the context).
   */
  async listSkills(streamId, { text, selected, context, timeoutMs = 30000 } = {}) {
    const requestId = `js-${randomUUID()}`;
    const e = { type: 'list_skills', stream_id: streamId, request_id: requestId };
    if (text) e.text = text;
    if (selected?.length) e.selected = [...selected];
    if (context) e.context = { ...context };
    let timer;
    const answer = new Promise((resolve, reject) => {
      this.requests.set(requestId, resolve);
      timer = setTimeout(() => reject(new TurnTimeoutError(`no skills answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await this.transport.request(e);
      return await answer;
    } finally {
      clearTimeout(timer);
      this.requests.delete(requestId);
      this.transport.release?.(streamId);
    }
  }

  inFlight() {
    return [...this.pending.values()].map((p) => p.event);
  }

  deliver(e) {
    if (!e || typeof e !== 'object') return;
    if (e.type === '_transport_lost') {
      const err = new TransportError(e.reason || 'the connection to toolbus was lost');
      for (const [key, p] of this.pending) {
        if (e.stream_id && key !== `${e.stream_id}\u0000${e.turn_id}`) continue;
        p.reject(err);
      }
      return;
    }
    const k = dedupKey(e);
    if (k !== null && !this.seen.add(k)) { this.duplicatesDropped++; return; }
    if (e.type === 'tools' || e.type === 'skills') { this.requests.get(e.request_id)?.(e); return; }
    bind(e, this);
    const p = this.pending.get(`${e.stream_id}\u0000${e.turn_id}`);
    if (e.type === 'error') {
      if (p && (e.code === 'BAD_EVENT' || e.code === 'REJECTED')) {
        p.reject(e.code === 'BAD_EVENT' ? new BadEventError(e.message) : new RejectedError(e.message));
        return;
      }
      this.callback((p ? p.callbacks : this.defaults()).error, e);
      return;
    }
    if (p) {
      p.turn.events.push(e);
      if (e.type === 'turn_completed') p.resolve(p.turn);
    }
    this.callback((p ? p.callbacks : this.defaults())[e.type], e);
  }

  defaults() {
    const out = {};
    for (const [type, name] of Object.entries(CALLBACKS)) out[type] = this.options[name];
    return out;
  }

  callback(cb, e) {
    if (!cb) return;
    Promise.resolve().then(() => cb(e)).catch((err) => {
      if (!(err instanceof ToolbusError)) console.error(`toolbus: a ${e.type} callback failed:`, err);
    });
  }
}

/** Connects a client (a shorthand for `new Client(url, options).connect()`). */
export function connect(url, options) {
  return new Client(url, options).connect();
}
