'use strict';
// Publishes one turn on Kafka and prints its events as JSON lines until turn_completed.
//   TOOLBUS_KAFKA_BOOTSTRAP  127.0.0.1:9092 (default)
//   TOOLBUS_CALLS_TOPIC      toolbus.calls (default)
//   TOOLBUS_RESULTS_TOPIC    toolbus.results (default)
//   usage: node kafka-turn.js [stream_id] [text]
const { Kafka, logLevel } = require('kafkajs');
const { makeTurn, makeCollector } = require('./turn');

const brokers = (process.env.TOOLBUS_KAFKA_BOOTSTRAP || '127.0.0.1:9092').split(',');
const callsTopic = process.env.TOOLBUS_CALLS_TOPIC || 'toolbus.calls';
const resultsTopic = process.env.TOOLBUS_RESULTS_TOPIC || 'toolbus.results';
const streamId = process.argv[2] || `node:kafka:${process.pid}`;
const text = process.argv[3] || 'hello from node';
const turnId = `turn-${Date.now()}-${process.pid}`;

async function main() {
  const kafka = new Kafka({ clientId: 'toolbus-node-example', brokers, logLevel: logLevel.ERROR });
  const consumer = kafka.consumer({ groupId: `toolbus-node-example-${process.pid}-${Date.now()}` });
  const producer = kafka.producer();
  await Promise.all([consumer.connect(), producer.connect()]);

  let resolveDone;
  const finished = new Promise((resolve) => { resolveDone = resolve; });
  const collect = makeCollector(turnId, resolveDone);
  // a fresh group reads from the start; the collector keeps only this turn's events
  await consumer.subscribe({ topic: resultsTopic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (message.key && message.key.toString() === streamId && message.value) {
        collect(JSON.parse(message.value.toString()));
      }
    },
  });

  // the key is the stream_id: every turn of a conversation goes to one partition, in order
  await producer.send({
    topic: callsTopic,
    messages: [{ key: streamId, value: JSON.stringify(makeTurn(streamId, turnId, text)) }],
  });

  let timer;
  const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve(null), 60000); });
  const done = await Promise.race([finished, timeout]);
  clearTimeout(timer);
  await Promise.all([consumer.disconnect(), producer.disconnect()]);
  if (!done) {
    console.error(`no turn_completed for ${turnId} within 60 s`);
    process.exit(1);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
