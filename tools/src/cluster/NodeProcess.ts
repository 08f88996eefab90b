import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The platform's own CLI: cluster nodes are what an operator runs, not an in-process server. */
export const SERVER_CLI = fileURLToPath(new URL('../../../server/bin/social-layer.js', import.meta.url));

/** What the first start of a fresh database prints once: the development application's credentials. */
export interface DevelopmentApplication {
  applicationId: string;
  clientSecret: string;
  botToken: string;
}

/**
 * One server node as a separate process of `social-layer start`. It is ready when it prints its
 * "listening on" line; its output is kept (bounded) so a failure can say what the node said.
 */
export class NodeProcess {
  child: ChildProcess | null = null;
  /** The last 64 KiB of stdout and stderr together. */
  output = '';
  application: DevelopmentApplication | null = null;
  private exited: Promise<number | null> = Promise.resolve(null);

  constructor(
    readonly index: number,
    readonly port: number,
    private readonly args: readonly string[],
    private readonly env: NodeJS.ProcessEnv,
    private readonly echo: ((line: string) => void) | null,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | null {
    return this.child && this.child.exitCode === null && this.child.signalCode === null ? (this.child.pid ?? null) : null;
  }

  /** Spawns the node and resolves once it listens; rejects (with its output) if it exits or stalls first. */
  async start(timeoutMs: number): Promise<void> {
    if (this.pid) throw new Error(`node ${this.index} is already running`);
    const child = spawn(process.execPath, [SERVER_CLI, 'start', '--port', String(this.port), ...this.args], {
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      this.output = (this.output + text).slice(-65_536);
      if (this.echo) for (const line of text.split('\n')) if (line.trim()) this.echo(`[node ${this.index}] ${line}`);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`node ${this.index} did not start within ${timeoutMs} ms`)), timeoutMs);
      const fail = (err: Error) => {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        child.kill('SIGKILL');
        reject(new Error(`${err.message}; its output:\n${this.output}`));
      };
      const check = () => {
        if (!/Social Layer listening on /.test(this.output)) return;
        clearTimeout(timer);
        child.stdout!.off('data', check);
        this.application ??= parseApplication(this.output);
        resolve();
      };
      child.stdout!.on('data', check);
      void this.exited.then((code) => fail(new Error(`node ${this.index} exited (${code ?? child.signalCode}) before it listened`)));
    });
  }

  /** Sends the signal and waits until the process is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!this.pid) return;
    this.child!.kill(signal);
    await this.exited;
  }

  /** SIGTERM (the node closes its sockets and database), SIGKILL after `graceMs`. */
  async stop(graceMs = 5_000): Promise<void> {
    if (!this.pid) return;
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), graceMs);
    await this.kill('SIGTERM');
    clearTimeout(timer);
  }
}

function parseApplication(output: string): DevelopmentApplication | null {
  const id = /"application_id":\s*"(\d+)"/.exec(output)?.[1];
  const secret = /"client_secret":\s*"([^"]+)"/.exec(output)?.[1];
  const bot = /"bot_token":\s*"([^"]+)"/.exec(output)?.[1];
  return id && secret && bot ? { applicationId: id, clientSecret: secret, botToken: bot } : null;
}
