// The stdio sidecar: toolbus runs as a child process (`toolbus serve --bus stdio`); one event per line
// each way.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { TransportError } from '../errors.js';

export class StdioTransport {
  constructor(command, deliver, env) {
    if (!command || !command.length) {
      throw new TypeError("the stdio transport needs the command that starts toolbus, e.g. ['./toolbus', 'serve', '--bus', 'stdio']");
    }
    this.command = command;
    this.env = env;
    this.deliver = deliver;
  }

  async start() {
    this.proc = spawn(this.command[0], this.command.slice(1), { stdio: ['pipe', 'pipe', 'ignore'], env: this.env || process.env });
    await new Promise((resolve, reject) => {
      this.proc.once('spawn', resolve);
      this.proc.once('error', (e) => reject(new TransportError(`cannot start ${this.command[0]}: ${e.message}`, { cause: e })));
    });
    this.exited = new Promise((resolve) => this.proc.once('exit', resolve));
    const lines = createInterface({ input: this.proc.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (!line.trim()) return;
      try { this.deliver(JSON.parse(line)); } catch { /* not JSON */ }
    });
    lines.on('close', () => this.deliver({ type: '_transport_lost', reason: 'the toolbus sidecar exited' }));
    this.proc.stdin.on('error', () => {});
  }

  async close() {
    if (!this.proc) return;
    this.proc.stdin.end();
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 30000);
    await this.exited;
    clearTimeout(timer);
  }

  async send(event) {
    if (this.proc.exitCode !== null) throw new TransportError('the toolbus sidecar is not running');
    const ok = this.proc.stdin.write(`${JSON.stringify(event)}\n`);
    if (!ok) await new Promise((r) => this.proc.stdin.once('drain', r));
  }

  sendTurn(event) { return this.send(event); }

  sendControl(event) { return this.send(event); }

  request(event) { return this.send(event); }
}
