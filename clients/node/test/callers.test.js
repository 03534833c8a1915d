// Programmatic callers in the providers' raw shapes, through the client against a real `toolbus serve`
// (the stdio sidecar): the `caller` of an Anthropic tool_use block and of an OpenAI Responses
// function_call item reaches toolbus, which refuses a programmatic call of a tool that allows only direct
// calls (every sample tool) and runs a direct one. Mirrors clients/python/tests/test_callers.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '../src/index.js';
import { serverCommand } from './support.js';

const CALLS = [
  { type: 'tool_use', id: 'toolu_01', name: 'echo', input: { text: 'hi' }, caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_01' } },
  { type: 'tool_use', id: 'toolu_02', name: 'echo', input: { text: 'direct' }, caller: { type: 'direct' } },
  { type: 'function_call', call_id: 'call_03', name: 'echo', arguments: '{"text":"x"}', caller: { type: 'program', caller_id: 'prog_1' } },
  { tool_call_id: 'c4', name: 'echo', arguments: { text: 'y' }, caller: { type: 'programmatic', id: 'run_1' } },
];

test('the providers\' caller shapes reach toolbus', async () => {
  const tb = await new Client('stdio:', { command: serverCommand('--bus', 'stdio') }).connect();
  try {
    const turn = await tb.runTurn('js:callers', CALLS, { timeoutMs: 60000 });
    for (const id of ['toolu_01', 'call_03', 'c4']) {
      const r = turn.result(id);
      assert.equal(r.is_error, true, id);
      assert.equal(r.error.code, 'NOT_ALLOWED', id);
      assert.equal(r.content, 'Tool echo cannot be called by a programmatic caller; it allows: direct.');
    }
    assert.equal(turn.result('toolu_02').is_error, false);
    assert.equal(turn.result('toolu_02').content, 'direct');
  } finally {
    await tb.close();
  }
});
