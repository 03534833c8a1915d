// docs/llm-messages.md: the events of its turn, mapped by the client, are exactly the JSON the page
// shows for each provider (and that JSON passes the provider shape checks). Mirrors
// clients/python/tests/test_llm_messages_doc.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Turn } from '../src/turn.js';
import { ROOT, checkAnthropic, checkGemini, checkOpenAI, checkOpenAIResponses } from './support.js';

/** The page's ```json blocks by the heading above them, each a list of its lines parsed. */
function jsonBlocks() {
  const text = readFileSync(join(ROOT, 'docs', 'llm-messages.md'), 'utf8');
  const blocks = {};
  for (const section of text.split(/^## /m).slice(1)) {
    const heading = section.slice(0, section.indexOf('\n')).trim();
    const code = section.match(/```json\n([\s\S]*?)```/);
    if (code) blocks[heading] = code[1].split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  }
  return blocks;
}

const blocks = jsonBlocks();
const turn = new Turn('qq:group:1', 'msg-42');
turn.events.push(...blocks['The turn used below']);
const ids = turn.results.map((r) => r.tool_call_id);

test('the page has the turn and the four providers', () => {
  assert.deepEqual(Object.keys(blocks).sort(), ['Anthropic Messages', 'Gemini', 'OpenAI Chat Completions',
    'OpenAI Responses API', 'The turn used below']);
  assert.deepEqual(ids, ['call_1', 'call_2']);
  assert.equal(turn.media.length, 1);
});

test('OpenAI Chat Completions', () => {
  assert.deepEqual(turn.toOpenAI(), blocks['OpenAI Chat Completions']);
  checkOpenAI(blocks['OpenAI Chat Completions'], ids);
});

test('OpenAI Responses API', () => {
  assert.deepEqual(turn.toOpenAIResponses(), blocks['OpenAI Responses API']);
  checkOpenAIResponses(blocks['OpenAI Responses API'], ids);
});

test('Anthropic Messages', () => {
  assert.deepEqual(turn.toAnthropic(), blocks['Anthropic Messages']);
  checkAnthropic(blocks['Anthropic Messages'], ids);
});

test('Gemini', () => {
  assert.deepEqual(turn.toGemini(), blocks.Gemini);
  checkGemini(blocks.Gemini, ids);
});
