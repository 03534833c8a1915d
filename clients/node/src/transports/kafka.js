// Kafka through kafkajs (an optional peer dependency). Turns and control events are produced to the
// calls topic keyed by stream_id; the client reads the results topic in a consumer group of its own,
// from the end at the time it connected, and passes on only the events of the streams it runs turns
// on (the topic carries every client's conversations: another client's approval_request is not ours
// to answer).
import { TransportError } from '../errors.js';

export class KafkaTransport {
  constructor(brokers, deliver, { callsTopic = 'toolbus.calls', resultsTopic = 'toolbus.results', groupId } = {}) {
    this.brokers = brokers;
    this.deliver = deliver;
    this.callsTopic = callsTopic;
    this.resultsTopic = resultsTopic;
    this.groupId = groupId || `toolbus-client-${process.pid}-${Date.now()}`;
    this.streams = new Map();
  }

  async start() {
    let Kafka;
    let logLevel;
    try {
      ({ Kafka, logLevel } = await import('kafkajs'));
    } catch (e) {
      throw new TransportError("the Kafka transport needs the 'kafkajs' package (npm install kafkajs)", { cause: e });
    }
    const kafka = new Kafka({ clientId: 'toolbus-client', brokers: this.brokers, logLevel: logLevel.NOTHING });
    this.producer = kafka.producer();
    this.consumer = kafka.consumer({ groupId: this.groupId });
    try {
      await this.waitForTopic(kafka);
      await this.producer.connect();
      await this.consumer.connect();
      await this.consumer.subscribe({ topic: this.resultsTopic, fromBeginning: false });
      const joined = new Promise((resolve) => {
        const off = this.consumer.on(this.consumer.events.FETCH, () => { off(); resolve(); });
      });
      await this.consumer.run({
        eachMessage: async ({ message }) => {
          let e;
          try { e = JSON.parse(message.value.toString('utf8')); } catch { return; /* not JSON */ }
          if (e && this.streams.has(e.stream_id)) this.deliver(e);
        },
      });
      await joined;
    } catch (e) {
      throw new TransportError(`cannot use Kafka at ${this.brokers.join(',')}: ${e.message}`, { cause: e });
    }
  }

  /** The results topic is created by toolbus at its start; wait for it rather than fail a fresh deployment. */
  async waitForTopic(kafka) {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const deadline = Date.now() + (this.topicWaitMs ?? 30000);
      for (;;) {
        const topics = await admin.listTopics();
        if (topics.includes(this.resultsTopic)) return;
        if (Date.now() > deadline) throw new Error(`topic ${this.resultsTopic} does not exist: is toolbus running on this cluster?`);
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await admin.disconnect();
    }
  }

  async close() {
    await this.consumer?.disconnect();
    await this.producer?.disconnect();
  }

  async send(event) {
    await this.producer.send({ topic: this.callsTopic, messages: [{ key: event.stream_id, value: JSON.stringify(event) }] });
  }

  follow(streamId) { this.streams.set(streamId, (this.streams.get(streamId) ?? 0) + 1); }

  release(streamId) {
    const n = (this.streams.get(streamId) ?? 0) - 1;
    if (n > 0) this.streams.set(streamId, n); else this.streams.delete(streamId);
  }

  sendTurn(event) { this.follow(event.stream_id); return this.send(event); }

  sendControl(event) { return this.send(event); }

  request(event) { this.follow(event.stream_id); return this.send(event); }
}
