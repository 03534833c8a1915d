'use strict';
// Publishes one turn on Redis Streams and prints its events as JSON lines until turn_completed.
//   TOOLBUS_REDIS_URL      redis://127.0.0.1:6379 (default)
//   TOOLBUS_CALLS_STREAM   toolbus:calls (default)
//   TOOLBUS_RESULTS_KEY    toolbus:results:{stream_id} (default; {stream_id} is replaced)
//   usage: node redis-turn.js [stream_id] [text]
const Redis = require('ioredis');
const { makeTurn, makeCollector } = require('./turn');

const url = process.env.TOOLBUS_REDIS_URL || 'redis://127.0.0.1:6379';
const callsStream = process.env.TOOLBUS_CALLS_STREAM || 'toolbus:calls';
const resultsTemplate = process.env.TOOLBUS_RESULTS_KEY || 'toolbus:results:{stream_id}';
const streamId = process.argv[2] || `node:redis:${process.pid}`;
const text = process.argv[3] || 'hello from node';
const turnId = `turn-${Date.now()}-${process.pid}`;

async function main() {
  const redis = new Redis(url, { maxRetriesPerRequest: 3 });
  const resultsKey = resultsTemplate.replace('{stream_id}', streamId);
  // read the results stream from its current end, so only this turn's events are seen
  const last = await redis.xrevrange(resultsKey, '+', '-', 'COUNT', 1);
  let cursor = last.length ? last[0][0] : '0-0';

  await redis.xadd(callsStream, '*', 'event', JSON.stringify(makeTurn(streamId, turnId, text)));

  let done = null;
  const collect = makeCollector(turnId, (e) => { done = e; });
  const deadline = Date.now() + 30000;
  while (!done && Date.now() < deadline) {
    const reply = await redis.xread('COUNT', 100, 'BLOCK', 1000, 'STREAMS', resultsKey, cursor);
    if (!reply) continue;
    for (const [, entries] of reply) {
      for (const [id, fields] of entries) {
        cursor = id;
        const i = fields.indexOf('event');
        if (i >= 0) collect(JSON.parse(fields[i + 1]));
      }
    }
  }
  redis.disconnect();
  if (!done) {
    console.error(`no turn_completed for ${turnId} within 30 s`);
    process.exit(1);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
