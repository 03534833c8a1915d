// The npm package installed into fresh npm projects, from its folder and from `npm pack`: the README's
// plugin runs from each project under `toolbus serve`, and the installed host commands run the OpenClaw and
// ChatAI examples. Needs the server jar: run by scripts/test-packages.sh after the build.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Child, EXAMPLES } from './child.mjs';

const PKG_DIR = fileURLToPath(new URL('..', import.meta.url));
const ROOT = join(PKG_DIR, '..', '..', '..');
const JAR = process.env.TOOLBUS_JAR || join(ROOT, 'server', 'target', 'toolbus-server.jar');
const README = readFileSync(join(PKG_DIR, 'README.md'), 'utf8');
const run = promisify(execFile);
const WAIT_MS = 180000;

const noJar = !existsSync(JAR) && process.env.TOOLBUS_REQUIRE_JAR !== '1' && `the server jar ${JAR} is missing`;

/** The first fenced block of `lang` after the heading `after`. */
function readmeBlock(lang, heading) {
  const rest = README.slice(README.indexOf(heading));
  const m = rest.match(new RegExp('```' + lang + '\\n([\\s\\S]*?)```'));
  assert.ok(m, `no ${lang} block after ${heading}`);
  return m[1];
}

let work;
before(() => { work = mkdtempSync(join(tmpdir(), 'toolbus-plugin-npm-')); });
after(() => rmSync(work, { recursive: true, force: true }));

/** A fresh npm project holding the README's plugin, with `spec` (a folder or a tarball) installed. */
async function pluginProject(dir, spec) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'weather-plugin', private: true, type: 'module' }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--offline', spec], { cwd: dir, timeout: WAIT_MS });
  writeFileSync(join(dir, 'weather.mjs'), readmeBlock('js', '## A plugin'));
  writeFileSync(join(dir, 'plugin.json'), readmeBlock('json', '## A plugin'));
  return dir;
}

/** One turn on `toolbus serve --bus stdio --plugins DIR`; the tool_result events by call id. */
function serveTurn(plugins, calls) {
  assert.ok(existsSync(JAR), `the server jar ${JAR} is missing`);
  const opts = (process.env.TOOLBUS_JAVA_OPTS || '-Xmx256m').split(/\s+/).filter(Boolean);
  const proc = spawn('java', [...opts, '-jar', JAR, 'serve', '--bus', 'stdio', '--plugins', plugins, '--log-level', 'warn'],
    { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { err = (err + d).slice(-4000); });
  proc.stdin.end(`${JSON.stringify({ type: 'tool_calls', stream_id: 'packages', turn_id: 't1', calls })}\n`);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`serve did not finish: ${err}`)); }, WAIT_MS);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`serve exited ${code}: ${err}`));
      const results = {};
      for (const line of out.split('\n').filter(Boolean)) {
        const e = JSON.parse(line);
        if (e.type === 'tool_result') results[e.tool_call_id] = e;
      }
      resolve({ results, stderr: err });
    });
  });
}

const WEATHER = [
  { tool_call_id: 'c1', name: 'weather', arguments: { city: 'Oslo' } },
  { tool_call_id: 'c2', name: 'weather', arguments: { city: 'Atlantis' } },
];

function checkWeather({ results, stderr }) {
  assert.deepEqual(Object.keys(results).sort(), ['c1', 'c2'], stderr);
  assert.equal(results.c1.is_error, false, JSON.stringify(results.c1));
  assert.deepEqual(results.c1.data, { city: 'Oslo', celsius: 4 });
  assert.equal(results.c2.is_error, true);
  assert.match(results.c2.content, /unknown city: Atlantis/);
}

test('installed from the folder: the README plugin runs under serve', { skip: noJar }, async () => {
  const project = await pluginProject(join(work, 'from-folder', 'weather'), PKG_DIR);
  assert.ok(existsSync(join(project, 'node_modules', 'toolbus-plugin', 'package.json')));
  checkWeather(await serveTurn(join(work, 'from-folder'), WEATHER));
});

test('installed from npm pack: the README plugin runs under serve, and the host commands work', { skip: noJar }, async () => {
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', work], { cwd: PKG_DIR });
  const tarball = join(work, stdout.trim().split('\n').pop());
  const project = await pluginProject(join(work, 'from-pack', 'weather'), tarball);
  const installed = join(project, 'node_modules', 'toolbus-plugin');
  assert.ok(!lstatSync(installed).isSymbolicLink(), 'a copy of the package, not a link to the checkout');
  assert.equal(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version, '0.1.0');
  assert.ok(!existsSync(join(installed, 'test')));
  checkWeather(await serveTurn(join(work, 'from-pack'), WEATHER));

  const bin = (name) => join(project, 'node_modules', '.bin', name);
  const claw = new Child(bin('toolbus-openclaw-host'), [`${EXAMPLES}openclaw-my-tool`]);
  assert.deepEqual((await claw.activate('my-tool')).tools.map((t) => t.name), ['my_tool']);
  claw.call(2, 'my_tool', { input: 'hi' });
  assert.deepEqual(await claw.read(), { id: 2, result: 'hi' });
  assert.equal((await claw.close()).code, 0);

  const chatai = new Child(bin('toolbus-chatai-host'), [`${EXAMPLES}chatai-tools`], { env: { ...process.env, TOOLBUS_CHATAI_WATCH: '0' } });
  assert.deepEqual((await chatai.activate('chatai-tools')).tools.map((t) => t.name), ['my_tool', 'whoami']);
  chatai.call(2, 'my_tool', { param1: 'x' });
  assert.deepEqual(await chatai.read(), { id: 2, result: { result: '...' } });
  assert.equal((await chatai.close()).code, 0);
});
