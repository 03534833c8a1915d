'use strict';
// The turn a bot core publishes: the tool calls of one assistant message, keyed by stream_id.
// Both shapes toolbus accepts appear: its own {tool_call_id, name, arguments} and the OpenAI item.

function makeTurn(streamId, turnId, text) {
  return {
    type: 'tool_calls',
    stream_id: streamId,
    turn_id: turnId,
    calls: [
      { tool_call_id: `${turnId}-1`, name: 'echo', arguments: { text } },
      { id: `${turnId}-2`, type: 'function', function: { name: 'echo', arguments: JSON.stringify({ text: text.toUpperCase() }) } },
    ],
    context: { user_id: 'u1', platform: 'example', permission: 'member' },
  };
}

// Delivery is at least once: a consumer keeps the first result per tool_call_id and ignores repeats.
function makeCollector(turnId, onDone) {
  const seen = new Set();
  let finished = false;
  return (event) => {
    if (finished || event.turn_id !== turnId) return;
    if (event.type === 'tool_result') {
      if (seen.has(event.tool_call_id)) return;
      seen.add(event.tool_call_id);
    }
    process.stdout.write(JSON.stringify(event) + '\n');
    if (event.type === 'turn_completed' || event.type === 'error') {
      finished = true;
      onDone(event);
    }
  };
}

module.exports = { makeTurn, makeCollector };
