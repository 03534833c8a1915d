import { createHash } from 'node:crypto';

// Events keep the wire's snake_case fields. Approval and input requests get answer methods bound to
// the client that received them.

/** What identifies an event across redeliveries (delivery is at least once), or null. */
export function dedupKey(e) {
  switch (e.type) {
    case 'tool_result': return `r\u0000${e.stream_id}\u0000${e.turn_id}\u0000${e.tool_call_id}`;
    case 'user_message': return `m\u0000${e.stream_id}\u0000${e.message_id}`;
    case 'turn_completed': return `c\u0000${e.stream_id}\u0000${e.turn_id}`;
    case 'send_message': return `s\u0000${e.stream_id}\u0000${e.message_id}`;
    case 'approval_request': return `a\u0000${e.stream_id}\u0000${e.approval_id}`;
    case 'input_request': return `i\u0000${e.stream_id}\u0000${e.input_id}`;
    case 'tool_progress':
      return `p\u0000${e.stream_id}\u0000${e.tool_call_id}\u0000${e.progress}\u0000${e.total}\u0000${e.message}`;
    default: return null;
  }
}

/** Adds answer methods to approval and input requests (non-enumerable: JSON.stringify stays the wire). */
export function bind(e, client) {
  const def = (name, fn) => Object.defineProperty(e, name, { value: fn, enumerable: false });
  if (e.type === 'approval_request') {
    def('approve', (opts = {}) => client.respondApproval(e, 'approve', opts));
    def('deny', (opts = {}) => client.respondApproval(e, 'deny', opts));
    def('approveSession', (opts = {}) => client.respondApproval(e, 'approve_session', opts));
  } else if (e.type === 'input_request') {
    def('accept', (content) => client.respondInput(e, 'accept', content));
    def('decline', () => client.respondInput(e, 'decline'));
    def('cancel', () => client.respondInput(e, 'cancel'));
  } else if (e.type === 'send_message') {
    def('text', () => (e.content || []).filter((p) => p.type === 'text').map((p) => p.text).join('\n'));
  }
  return e;
}

/**
 * Remembers the newest `capacity` keys, each as a 32-byte digest: the memory is bounded in bytes as
 * well as entries whatever the ids and progress messages hold.
 */
export class SeenKeys {
  constructor(capacity = 10000) {
    if (!(capacity >= 1)) throw new RangeError('capacity must be at least 1');
    this.capacity = capacity;
    this.keys = new Set();
  }

  add(rawKey) {
    const key = createHash('sha256').update(rawKey).digest('latin1');
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    if (this.keys.size > this.capacity) this.keys.delete(this.keys.values().next().value);
    return true;
  }
}
