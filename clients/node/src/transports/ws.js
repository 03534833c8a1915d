// The gateway's WebSocket /v1/ws. Uses the global WebSocket when Node has one, else the `ws` package
// (an optional peer dependency). On a drop it reconnects with backoff and sends the turns still in
// flight again under their own ids; the client drops the duplicates this causes. What is sent while
// the connection is down (a cancel, an approval answer) waits for the new connection.
import { AuthenticationError, TransportError } from '../errors.js';

async function webSocketClass() {
  try {
    const mod = await import('ws');
    return { WS: mod.WebSocket || mod.default, headers: true };
  } catch {
    if (globalThis.WebSocket) return { WS: globalThis.WebSocket, headers: false };
    throw new TransportError("the WebSocket transport needs Node's global WebSocket or the 'ws' package (npm install ws)");
  }
}

export class WebSocketTransport {
  constructor(url, token, deliver, inFlight, { reconnect = true, maxReconnectAttempts = 20 } = {}) {
    this.url = url;
    this.token = token;
    this.deliver = deliver;
    this.inFlight = inFlight;
    this.reconnect = reconnect;
    this.maxAttempts = maxReconnectAttempts;
    this.closing = false;
    this.reconnects = 0;
    this.socket = null;
    this.ready = null;
    // sends waiting for an open connection, and why there will be none (once reconnecting gave up)
    this.waiters = [];
    this.lost = null;
  }

  async start() {
    ({ WS: this.WS, headers: this.canSendHeaders } = await webSocketClass());
    await this.connect();
  }

  connect() {
    this.ready = new Promise((resolve, reject) => {
      const opts = this.canSendHeaders && this.token ? { headers: { authorization: `Bearer ${this.token}` }, maxPayload: 64 * 1024 * 1024 } : undefined;
      const url = !this.canSendHeaders && this.token ? `${this.url}${this.url.includes('?') ? '&' : '?'}token=${encodeURIComponent(this.token)}` : this.url;
      const ws = opts ? new this.WS(url, opts) : new this.WS(url);
      let opened = false;
      ws.onopen = () => { opened = true; this.socket = ws; resolve(ws); };
      ws.onmessage = (m) => {
        const text = typeof m.data === 'string' ? m.data : Buffer.from(m.data).toString('utf8');
        try { this.deliver(JSON.parse(text)); } catch { /* not JSON */ }
      };
      ws.onerror = () => {};
      if (typeof ws.on === 'function') {
        ws.on('unexpected-response', (req, res) => {
          reject(res.statusCode === 401 ? new AuthenticationError('toolbus refused the token (401)')
            : new TransportError(`WebSocket upgrade refused: HTTP ${res.statusCode}`));
        });
      }
      ws.onclose = () => {
        if (!opened) { reject(new TransportError(`cannot open a WebSocket to ${this.url}`)); return; }
        if (this.socket === ws) this.socket = null;
        if (!this.closing) this.onDrop();
        else this.giveUp(new TransportError('the client was closed'));
      };
    });
    this.ready.catch(() => {});
    return this.ready;
  }

  giveUp(err) {
    this.lost = err;
    for (const w of this.waiters.splice(0)) w.reject(err);
  }

  async onDrop() {
    if (!this.reconnect) {
      this.giveUp(new TransportError('the WebSocket to toolbus closed'));
      this.deliver({ type: '_transport_lost', reason: 'the WebSocket to toolbus closed' });
      return;
    }
    let delay = 50;
    for (let i = 0; i < this.maxAttempts && !this.closing; i++) {
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 2000);
      try {
        const ws = await this.connect();
        this.reconnects++;
        for (const e of this.inFlight()) ws.send(JSON.stringify(e));
        for (const w of this.waiters.splice(0)) w.resolve(ws);
        return;
      } catch { /* try again */ }
    }
    this.giveUp(new TransportError('the WebSocket to toolbus could not be reopened'));
    this.deliver({ type: '_transport_lost', reason: 'the WebSocket to toolbus could not be reopened' });
  }

  /** The open socket, or one once the connection is back; rejects when it will not come back. */
  open() {
    if (this.socket && this.socket.readyState === 1) return Promise.resolve(this.socket);
    if (this.lost || this.closing) return Promise.reject(this.lost ?? new TransportError('the client was closed'));
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  async send(event) {
    (await this.open()).send(JSON.stringify(event));
  }

  sendTurn(event) { return this.send(event); }

  sendControl(event) { return this.send(event); }

  request(event) { return this.send(event); }

  async close() {
    this.closing = true;
    this.giveUp(new TransportError('the client was closed'));
    if (this.socket) this.socket.close(1000);
  }
}
