// The package as a user installs it: `npm pack` (no registry) holds the ESM sources and index.d.ts,
// a project imports it by name through package.json "exports", every runtime export is declared in
// index.d.ts, and ioredis/kafkajs/ws are optional peer dependencies (not installed with the package).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const run = promisify(execFile);

test('package.json: ESM with types, and the broker clients as optional peer dependencies', () => {
  assert.equal(pkg.type, 'module');
  assert.deepEqual(pkg.exports['.'], { types: './src/index.d.ts', import: './src/index.js' });
  assert.equal(pkg.dependencies, undefined, 'no runtime dependencies');
  for (const peer of ['ioredis', 'kafkajs', 'ws']) {
    assert.ok(pkg.peerDependencies[peer], peer);
    assert.equal(pkg.peerDependenciesMeta[peer].optional, true, peer);
  }
});

test('every runtime export is declared in index.d.ts', async () => {
  const runtime = Object.keys(await import('../src/index.js')).sort();
  const dts = readFileSync(join(pkgDir, 'src', 'index.d.ts'), 'utf8');
  const declared = [...dts.matchAll(/^export (?:declare )?(?:class|function|const) (\w+)/gm)].map((m) => m[1]);
  assert.deepEqual([...new Set(declared)].sort(), runtime);
});

test('the packed tarball imports by its name in another project', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolbus-npm-'));
  try {
    const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: pkgDir });
    const tarball = join(dir, stdout.trim().split('\n').pop());
    const modules = join(dir, 'app', 'node_modules', pkg.name);
    mkdirSync(modules, { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', modules, '--strip-components=1']);
    const { stdout: files } = await run('tar', ['-tzf', tarball]);
    assert.ok(files.includes('package/src/index.d.ts'), files);
    assert.ok(!files.includes('package/test/'), 'tests are not shipped');
    writeFileSync(join(dir, 'app', 'package.json'), '{"type":"module"}');
    writeFileSync(join(dir, 'app', 'main.js'), `import { Client, Turn, TransportError } from '${pkg.name}';\n`
      + 'const t = new Turn("s", "t");\n'
      + 'console.log(typeof Client, JSON.stringify(t.toOpenAI()), new TransportError("x") instanceof Error);\n');
    const { stdout: out } = await run('node', ['main.js'], { cwd: join(dir, 'app') });
    assert.equal(out.trim(), 'function [] true');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
