// HTTP + Server-Sent Events to the gateway, with Node's fetch: each turn is one POST /v1/turns with
// Accept: text/event-stream (its events arrive as they happen); control events go to POST /v1/control.
import { TransportError, errorForStatus } from '../errors.js';

export class HttpTransport {
  constructor(url, token, deliver, { answerTimeoutMs = 30000 } = {}) {
    this.base = url.replace(/\/+$/, '');
    this.token = token;
    this.deliver = deliver;
    this.answerTimeoutMs = answerTimeoutMs;
    this.controllers = new Set();
  }

  async start() {}

  async close() {
    for (const c of this.controllers) c.abort();
    this.controllers.clear();
  }

  headers(accept) {
    const h = { 'content-type': 'application/json', accept };
    if (this.token) h.authorization = `Bearer ${this.token}`;
    return h;
  }

  /**
   * One POST; resolves once the status and headers arrived. Bounded by answerTimeoutMs: fetch can
   * wait forever on a server that closes the connection before reading the request.
   */
  async post(path, event, accept, signal) {
    const ctl = new AbortController();
    if (signal) signal.addEventListener('abort', () => ctl.abort(signal.reason), { once: true });
    let timer;
    // its own timer, not only the abort: such a fetch does not settle on abort either
    const noAnswer = new Promise((_, reject) => {
      timer = setTimeout(() => {
        ctl.abort();
        reject(new TransportError(`toolbus did not answer ${path} within ${this.answerTimeoutMs} ms`));
      }, this.answerTimeoutMs);
    });
    try {
      return await Promise.race([
        fetch(this.base + path, { method: 'POST', headers: this.headers(accept), body: JSON.stringify(event), signal: ctl.signal })
          .catch((e) => { throw new TransportError(`HTTP request to toolbus failed: ${e.message}`, { cause: e }); }),
        noAnswer]);
    } finally {
      clearTimeout(timer);
    }
  }

  async sendTurn(event) {
    const controller = new AbortController();
    this.controllers.add(controller);
    let res;
    try {
      res = await this.post('/v1/turns', event, 'text/event-stream', controller.signal);
    } catch (e) {
      this.controllers.delete(controller);
      throw e;
    }
    if (res.status !== 200) {
      this.controllers.delete(controller);
      throw errorForStatus(res.status, await res.text());
    }
    this.pump(res, event, controller);
  }

  async pump(res, event, controller) {
    const decoder = new TextDecoder();
    let buf = '';
    let data = [];
    let completed = false;
    const emit = (text) => {
      const e = this.emit(text);
      if (e && e.type === 'turn_completed' && e.turn_id === event.turn_id) completed = true;
    };
    try {
      for await (const chunk of res.body) {
        buf += decoder.decode(chunk, { stream: true });
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i).replace(/\r$/, '');
          buf = buf.slice(i + 1);
          if (line === '') {
            if (data.length) emit(data.join('\n'));
            data = [];
          } else if (line.startsWith('data:')) {
            data.push(line.slice(5).replace(/^ /, ''));
          }
        }
      }
      if (data.length) emit(data.join('\n'));
      if (!completed && !controller.signal.aborted) {
        // the stream ended cleanly but early (a proxy or the server closed it): the turn's events are gone
        this.deliver({ type: '_transport_lost', stream_id: event.stream_id, turn_id: event.turn_id, reason: 'the event stream ended before turn_completed' });
      }
    } catch (e) {
      if (!controller.signal.aborted) {
        this.deliver({ type: '_transport_lost', stream_id: event.stream_id, turn_id: event.turn_id, reason: e.message });
      }
    } finally {
      this.controllers.delete(controller);
    }
  }

  emit(text) {
    let e;
    try { e = JSON.parse(text); } catch { return null; /* not JSON: skip */ }
    this.deliver(e);
    return e;
  }

  async sendControl(event) {
    const res = await this.post('/v1/control', event, 'application/json');
    const body = await res.text();
    if (res.status >= 300) throw errorForStatus(res.status, body);
    if (!body.trim()) return;
    try {
      const answer = JSON.parse(body);
      for (const e of Array.isArray(answer) ? answer : [answer]) if (e && e.type === 'error') this.deliver(e);
    } catch { /* an empty or non-JSON acknowledgement */ }
  }

  async request(event) {
    const res = await this.post('/v1/turns', event, 'application/json');
    const body = await res.text();
    if (res.status >= 300) throw errorForStatus(res.status, body);
    for (const e of JSON.parse(body)) this.deliver(e);
  }
}
