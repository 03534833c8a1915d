// Redis Streams through ioredis (an optional peer dependency). Turns and control events are added to
// the calls stream as an entry with one field `event`; each conversation's events are read from
// `toolbus:results:{stream_id}`, from the entry that was last before the turn was sent.
import { TransportError } from '../errors.js';

export class RedisTransport {
  constructor(url, deliver, { callsStream = 'toolbus:calls', resultsKey = 'toolbus:results:{stream_id}', blockMs = 500 } = {}) {
    this.url = url;
    this.deliver = deliver;
    this.calls = callsStream;
    this.template = resultsKey;
    this.blockMs = blockMs;
    this.readers = new Map();
  }

  async start() {
    let Redis;
    try {
      Redis = (await import('ioredis')).default;
    } catch (e) {
      throw new TransportError("the Redis transport needs the 'ioredis' package (npm install ioredis)", { cause: e });
    }
    this.Redis = Redis;
    this.redis = new Redis(this.url, { maxRetriesPerRequest: 3, lazyConnect: true });
    try {
      await this.redis.connect();
    } catch (e) {
      throw new TransportError(`cannot reach Redis at ${this.url}: ${e.message}`, { cause: e });
    }
  }

  async close() {
    for (const r of this.readers.values()) r.stop();
    this.readers.clear();
    this.redis?.disconnect();
  }

  async add(event) {
    try {
      await this.redis.xadd(this.calls, '*', 'event', JSON.stringify(event));
    } catch (e) {
      throw new TransportError(`XADD to ${this.calls} failed: ${e.message}`, { cause: e });
    }
  }

  async follow(streamId) {
    const existing = this.readers.get(streamId);
    if (existing) { existing.users++; return; }
    const key = this.template.replace('{stream_id}', streamId);
    const last = await this.redis.xrevrange(key, '+', '-', 'COUNT', 1);
    // another turn of this stream began following it meanwhile: share its reader (a second one would
    // replace it in the map and read on, unstoppable, after close)
    const raced = this.readers.get(streamId);
    if (raced) { raced.users++; return; }
    const reader = { users: 1, cursor: last.length ? last[0][0] : '0-0', stopped: false, conn: this.redis.duplicate() };
    reader.stop = () => { reader.stopped = true; reader.conn.disconnect(); };
    this.readers.set(streamId, reader);
    (async () => {
      while (!reader.stopped) {
        let reply;
        try {
          reply = await reader.conn.xread('COUNT', 100, 'BLOCK', this.blockMs, 'STREAMS', key, reader.cursor);
        } catch {
          if (reader.stopped) return;
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        for (const [, entries] of reply || []) {
          for (const [id, fields] of entries) {
            reader.cursor = id;
            const i = fields.indexOf('event');
            if (i < 0) continue;
            try { this.deliver(JSON.parse(fields[i + 1])); } catch { /* not JSON */ }
          }
        }
      }
    })();
  }

  release(streamId) {
    const r = this.readers.get(streamId);
    if (!r) return;
    if (--r.users > 0) return;
    this.readers.delete(streamId);
    r.stop();
  }

  async sendTurn(event) { await this.follow(event.stream_id); await this.add(event); }

  async sendControl(event) { await this.add(event); }

  async request(event) { await this.follow(event.stream_id); await this.add(event); }
}
