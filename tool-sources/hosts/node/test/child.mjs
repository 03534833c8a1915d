// A plugin process for tests: spawns it and exchanges NDJSON lines with it.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const WAIT_MS = 15000;

export class Child {
  constructor(command, args, options = {}) {
    this.proc = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], ...options });
    this.queue = [];
    this.waiters = [];
    this.stderr = '';
    this.proc.stderr.on('data', (d) => { this.stderr += d; });
    this.exited = new Promise((r) => this.proc.on('exit', (code, signal) => r({ code, signal })));
    createInterface({ input: this.proc.stdout }).on('line', (line) => {
      const message = JSON.parse(line);
      const waiter = this.waiters.shift();
      if (waiter) waiter(message);
      else this.queue.push(message);
    });
  }

  write(message) {
    this.proc.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  }

  read() {
    if (this.queue.length) return Promise.resolve(this.queue.shift());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no message within ${WAIT_MS} ms; stderr: ${this.stderr}`)),
        WAIT_MS);
      this.waiters.push((m) => { clearTimeout(timer); resolve(m); });
    });
  }

  async activate(pluginId = 'test', params = {}) {
    this.write({ id: 1, method: 'activate', params: { pluginId, ...params } });
    return this.read();
  }

  call(id, toolName, args, context) {
    const params = { toolName, input: JSON.stringify(args) };
    if (context) params.context = context;
    this.write({ id, method: 'execute_tool', params });
  }

  async close() {
    this.write({ id: 999, method: 'deactivate' });
    this.proc.stdin.end();
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), WAIT_MS);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }

  /** Kills the process if it still runs (an after hook's, when a test failed midway); resolves once it has exited. */
  async end() {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
    return this.exited;
  }
}

const HOSTS = new URL('../..', import.meta.url).pathname;

export function openclaw(dir, options) {
  return new Child('node', ['--import', `${HOSTS}node/register-shims.mjs`, `${HOSTS}openclaw/host.mjs`, dir], options);
}

export function chatai(dir, options) {
  return new Child('node', ['--experimental-detect-module', '--no-warnings', `${HOSTS}chatai/host.mjs`, dir], options);
}

export const EXAMPLES = new URL('../../../../docs/examples/frameworks/', import.meta.url).pathname;
