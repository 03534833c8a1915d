// Example toolbus stdio plugin in Node.js, no npm packages: one JSON request per line on stdin,
// one JSON answer per line on stdout, logs on stderr.
'use strict';
const readline = require('readline');

const tools = [
  {
    name: 'node_echo',
    description: 'Echo the given text back.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'Text to echo' } },
      required: ['text'],
    },
  },
  {
    name: 'node_upper',
    description: 'Upper-case the given text.',
    parameters: [{ name: 'text', type: 'string', description: 'Text', required: true }],
  },
];

function answer(request, fields) {
  if (request.id !== undefined) fields.id = request.id; // the host matches answers by id
  process.stdout.write(JSON.stringify(fields) + '\n');
}

function execute(name, args) {
  switch (name) {
    case 'node_echo': return { result: String(args.text ?? '') };
    case 'node_upper': return { result: String(args.text ?? '').toUpperCase() };
    default: return { error: 'unknown tool: ' + name };
  }
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  const params = request.params || {};
  switch (request.method) {
    case 'activate':
      console.error('node-echo activated as ' + params.pluginId);
      answer(request, { tools });
      break;
    case 'execute_tool':
      try {
        const args = JSON.parse(params.input || '{}'); // the arguments arrive as a JSON string
        answer(request, execute(params.toolName, args));
      } catch (e) {
        answer(request, { error: String(e) });
      }
      break;
    case 'deactivate':
      answer(request, {});
      rl.close();
      break;
    default:
      answer(request, { error: 'unknown method: ' + request.method });
  }
});
rl.on('close', () => process.exit(0));
