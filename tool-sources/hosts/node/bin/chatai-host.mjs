#!/usr/bin/env node
// toolbus-chatai-host TOOLS_DIR: runs a ChatAI tools folder as a toolbus stdio plugin. ChatAI tool files
// are *.js in either module system; Node tells them apart by their syntax from 20.19 and 22.7 on, and
// with --experimental-detect-module from 20.10: there the host runs again under that flag. (Older Node
// loads such a *.js as CommonJS only.)
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const FLAG = '--experimental-detect-module';
const [major, minor] = process.versions.node.split('.').map(Number);
const detects = (major === 20 && minor >= 19) || (major === 22 && minor >= 7) || major >= 23;
if (detects || process.execArgv.includes(FLAG) || !process.allowedNodeEnvironmentFlags.has(FLAG)) {
  await import('../chatai-host.mjs');
} else {
  const host = fileURLToPath(new URL('../chatai-host.mjs', import.meta.url));
  const child = spawn(process.execPath, [FLAG, '--no-warnings', host,
    ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
