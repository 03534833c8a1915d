// The npm package as a user gets it: package.json exports with types, every runtime export of each entry
// declared in its .d.ts, the host commands present, and `npm pack` shipping the sources and types, not the tests.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const PKG_DIR = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8'));
const run = promisify(execFile);

/** The names a .d.ts exports: declarations, and `export { a, b } from` / `export type { … }` lists. */
function declaredNames(file) {
  const dts = readFileSync(join(PKG_DIR, file), 'utf8');
  const names = [...dts.matchAll(/^export (?:declare )?(?:class|function|const|interface|type) (\w+)/gm)].map((m) => m[1]);
  for (const m of dts.matchAll(/^export (?:type )?\{([^}]*)\}/gm)) names.push(...m[1].split(',').map((s) => s.trim()).filter(Boolean));
  if (/^export default /m.test(dts)) names.push('default');
  return new Set(names);
}

test('package.json: ESM, an exports map with types for every entry, no dependencies', () => {
  assert.equal(pkg.name, 'toolbus-plugin');
  assert.equal(pkg.type, 'module');
  assert.equal(pkg.dependencies, undefined);
  for (const [entry, target] of Object.entries(pkg.exports)) {
    if (entry === './package.json') continue;
    assert.deepEqual(Object.keys(target), ['types', 'import'], entry);
    assert.ok(statSync(join(PKG_DIR, target.types)).isFile(), target.types);
    assert.ok(statSync(join(PKG_DIR, target.import)).isFile(), target.import);
  }
  assert.equal(pkg.types, pkg.exports['.'].types);
});

test('every runtime export of every entry is declared in its .d.ts', async () => {
  for (const [entry, target] of Object.entries(pkg.exports)) {
    if (entry === './package.json') continue;
    const runtime = Object.keys(await import(join(PKG_DIR, target.import)));
    const declared = declaredNames(target.types);
    for (const name of runtime) assert.ok(declared.has(name), `${entry}: ${name} is exported but not declared in ${target.types}`);
  }
});

test('the host commands are executable node scripts', () => {
  assert.deepEqual(Object.keys(pkg.bin).sort(), ['toolbus-chatai-host', 'toolbus-openclaw-host']);
  for (const file of Object.values(pkg.bin)) {
    const path = join(PKG_DIR, file);
    assert.ok(statSync(path).mode & 0o111, `${file} is executable`);
    assert.match(readFileSync(path, 'utf8'), /^#!\/usr\/bin\/env node\n/);
  }
});

test('npm pack ships the sources, types, commands and README, and no tests', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolbus-plugin-pack-'));
  try {
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PKG_DIR });
    const files = JSON.parse(stdout)[0].files.map((f) => f.path).sort();
    for (const f of ['sdk.mjs', 'sdk.d.ts', 'stdio.mjs', 'stdio.d.ts', 'typebox.mjs', 'typebox.d.ts', 'shims.mjs',
      'register-shims.mjs', 'openclaw-host.mjs', 'chatai-host.mjs', 'bin/openclaw-host.mjs', 'bin/chatai-host.mjs',
      'README.md', 'package.json']) {
      assert.ok(files.includes(f), `${f} in ${files}`);
    }
    assert.deepEqual(files.filter((f) => f.startsWith('test/')), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
