// Runs one assistant turn on toolbus and prints the messages for the next OpenAI request.
//   TOOLBUS_URL=http://127.0.0.1:8765 TOOLBUS_TOKEN=dev-secret node examples/quickstart.mjs
import { Client } from 'toolbus-client';

// the assistant message of an OpenAI Chat Completions answer, as the API returns it
const assistant = {
  role: 'assistant',
  content: null,
  tool_calls: [
    { id: 'call_1', type: 'function', function: { name: 'add', arguments: '{"a": 2, "b": 40}' } },
    { id: 'call_2', type: 'function', function: { name: 'draw', arguments: '{"label": "a cat"}' } },
  ],
};

const tb = await new Client(process.env.TOOLBUS_URL ?? 'http://127.0.0.1:8765', {
  token: process.env.TOOLBUS_TOKEN,
  onSendMessage: (m) => console.log('to the chat:', m.text()),
  onProgress: (p) => console.log(`progress: ${p.progress}/${p.total}`),
}).connect();
try {
  const messages = [{ role: 'user', content: 'add 2 and 40, then draw a cat' }, assistant];
  const turn = await tb.runTurn('quickstart:js', assistant.tool_calls, { context: { user_id: '42' } });
  messages.push(...turn.toOpenAI()); // tool messages in call order, then a user message with the image
  for (const m of messages.slice(2)) console.log(JSON.stringify(m).slice(0, 240));
} finally {
  await tb.close();
}
