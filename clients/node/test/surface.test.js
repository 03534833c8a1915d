// The Node client's public surface equals its column of clients/surface.md, which the Python client's
// tests hold to the other column: every name the table gives exists (exported at runtime or declared in
// src/index.d.ts), and every exported or declared name is in the table (a gap is a row with the other
// side's cell empty and a reason).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const SURFACE = join(here, '..', '..', 'surface.md');
const DTS = readFileSync(join(here, '..', 'src', 'index.d.ts'), 'utf8')
  .replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');
const runtime = await import('../src/index.js');

// the declarations whose members are surface: every member of the classes and options interfaces, the
// methods of the events that have some
const ALL_MEMBERS = ['Client', 'Turn', 'ClientOptions', 'RunTurnOptions', 'Callbacks'];
const METHODS_ONLY = ['SendMessageEvent', 'ApprovalRequestEvent', 'InputRequestEvent'];

/** (python, node, note) of each table row; a cell is its name, or '' for —. */
function rows() {
  const out = [];
  for (const line of readFileSync(SURFACE, 'utf8').split('\n')) {
    const cells = line.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());
    if (cells.length !== 4 || cells[0] === 'kind' || cells[0] === '---') continue;
    const names = cells.slice(1, 3).map((c) => {
      if (c === '—') return '';
      const m = c.match(/^`([^`]+)`$/);
      assert.ok(m, `a cell is a \`name\` or —, got ${c} in: ${line}`);
      return m[1];
    });
    out.push([names[0], names[1], cells[3]]);
  }
  return out;
}

/** The text between the brace that opens at `start` and the one that closes it. */
function braced(text, start) {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    if (text[i] === '{') depth++;
    if (text[i] === '}' && --depth === 0) return text.slice(start + 1, i);
  }
  throw new Error('unbalanced braces in index.d.ts');
}

/** Top-level declarations of index.d.ts: name -> { kind, body } (body: the class or interface text). */
function declarations() {
  const out = new Map();
  for (const m of DTS.matchAll(/^export (?:declare )?(class|interface|type|function|const) (\w+)[^{;=(]*/gm)) {
    const [, kind, name] = m;
    const open = DTS.indexOf('{', m.index + m[0].length - 1);
    const body = (kind === 'class' || kind === 'interface') && DTS[m.index + m[0].length] === '{' ? braced(DTS, open) : '';
    if (!out.has(name)) out.set(name, { kind, body });
  }
  return out;
}

/** Members of a class or interface body: name -> the member's text (a method's with its parameters). */
function members(body) {
  const out = new Map();
  let depth = 0;
  let current = '';
  const flush = () => {
    const m = current.trim().match(/^(?:readonly\s+|get\s+|static\s+)*(\w+)\??\s*[(:<]/);
    if (m) out.set(m[1], current.trim());
    current = '';
  };
  let previous = '';
  for (const ch of body) {
    if ('{(<'.includes(ch)) depth++;
    if ('})'.includes(ch) || (ch === '>' && previous !== '=')) depth--; // the > of => closes nothing
    previous = ch;
    if ((ch === ';' || ch === '\n') && depth === 0) flush();
    else current += ch;
  }
  flush();
  return out;
}

const DECLARED = declarations();

function resolves(name) {
  let m = name.match(/^(\w+)\.(\w+)\(\{(\w+)\}\)$/);
  if (m) {
    const text = members(DECLARED.get(m[1])?.body ?? '').get(m[2]) ?? '';
    return new RegExp(`\\b${m[3]}\\??:`).test(text);
  }
  m = name.match(/^(\w+)\.(\w+)$/);
  if (m) return members(DECLARED.get(m[1])?.body ?? '').has(m[2]);
  return /^\w+$/.test(name) && (name in runtime || DECLARED.has(name));
}

const NODE = rows().map(([, node]) => node).filter(Boolean);

test('every name in the Node column is exported or declared', () => {
  assert.deepEqual(NODE.filter((n) => !resolves(n)), [], 'named in clients/surface.md, not in the client');
});

test('every runtime export and every declaration of index.d.ts is in the table', () => {
  const names = new Set([...Object.keys(runtime), ...DECLARED.keys()]);
  assert.deepEqual([...names].filter((n) => !NODE.includes(n)).sort(), [], 'exported or declared, not in clients/surface.md');
});

test('every member of the client, the turn and the options, and every event method, is in the table', () => {
  const missing = [];
  for (const type of [...ALL_MEMBERS, ...METHODS_ONLY]) {
    assert.ok(DECLARED.has(type), `index.d.ts declares ${type}`);
    for (const [member, text] of members(DECLARED.get(type).body)) {
      if (member === 'constructor') continue;
      if (METHODS_ONLY.includes(type) && !/^\w+\s*\(/.test(text)) continue;
      if (!NODE.includes(`${type}.${member}`)) missing.push(`${type}.${member}`);
    }
  }
  assert.deepEqual(missing, [], 'declared, not in clients/surface.md');
});

test('the methods index.d.ts declares on Client and Turn exist at runtime', () => {
  for (const type of ['Client', 'Turn']) {
    const instance = type === 'Client' ? new runtime.Client('http://127.0.0.1:1') : new runtime.Turn('s', 't');
    for (const member of members(DECLARED.get(type).body).keys()) {
      if (member === 'constructor') continue;
      assert.ok(member in instance, `${type}.${member} is declared but not there at runtime`);
    }
  }
});

test('the table has rows, and a reason for each gap', () => {
  const table = rows();
  assert.ok(table.length > 80, `${table.length} rows`);
  for (const [python, node, note] of table) {
    assert.ok(python || node, 'a row names something');
    if (!python || !node) assert.ok(note, `the gap at ${python || node} says why`);
  }
});
