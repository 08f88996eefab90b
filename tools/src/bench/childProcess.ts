/**
 * A benchmark's child processes and the little IPC protocol between them and the parent: the
 * parent sends `{ type, id, ... }`, a child answers with the same id. A side in a process of its
 * own has CPU time (process.cpuUsage) that is its own and nothing else's (`voice-relay-udp`'s
 * relay and forwarders, `lobby-fanout`'s server side).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Message {
  type: string;
  id?: number;
  [key: string]: unknown;
}

export class Child {
  private nextId = 1;
  private readonly waiting = new Map<number, (m: Message) => void>();
  private readonly firstOfType = new Map<string, ((m: Message) => void)[]>();
  /** Unsolicited messages that came before anyone waited for them (a fast child's `ready`). */
  private readonly early: Message[] = [];
  readonly proc: ChildProcess;

  /** `module`: the child's script, e.g. `new URL('./lobby/platformProcess.ts', import.meta.url)`. */
  constructor(module: URL, extraExecArgv: string[] = [], env: Record<string, string> = {}) {
    const path = fileURLToPath(module);
    this.proc = fork(path, [], { execArgv: [...process.execArgv, ...extraExecArgv], env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.proc.on('message', (m: Message) => {
      if (m.id !== undefined && this.waiting.has(m.id)) {
        this.waiting.get(m.id)!(m);
        this.waiting.delete(m.id);
        return;
      }
      const list = this.firstOfType.get(m.type);
      if (list?.length) list.shift()!(m);
      else this.early.push(m);
    });
  }

  /** Waits for an unsolicited message of one type (a child's `ready`). */
  once(type: string, timeoutMs = 300_000): Promise<Message> {
    const i = this.early.findIndex((m) => m.type === type);
    if (i >= 0) {
      const m = this.early.splice(i, 1)[0]!;
      return m.error ? Promise.reject(new Error(String(m.error))) : Promise.resolve(m);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`child ${type} timed out`)), timeoutMs);
      const list = this.firstOfType.get(type) ?? [];
      list.push((m) => {
        clearTimeout(timer);
        if (m.error) reject(new Error(String(m.error)));
        else resolve(m);
      });
      this.firstOfType.set(type, list);
      this.proc.once('exit', (code) => reject(new Error(`child exited (${code}) before ${type}`)));
    });
  }

  request(msg: Message, timeoutMs = 120_000): Promise<Message> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`child request ${msg.type} timed out`)), timeoutMs);
      this.waiting.set(id, (m) => {
        clearTimeout(timer);
        if (m.error) reject(new Error(String(m.error)));
        else resolve(m);
      });
      this.proc.send({ ...msg, id });
    });
  }

  send(msg: Message): void {
    this.proc.send(msg);
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    const exited = new Promise<void>((r) => this.proc.once('exit', () => r()));
    this.proc.send({ type: 'stop' });
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/** In a child: answer requests with `handler`'s result (or its error). */
export function serve(handler: (m: Message) => Promise<Record<string, unknown>> | Record<string, unknown>): void {
  process.on('message', (m: Message) => {
    Promise.resolve()
      .then(() => handler(m))
      .then(
        (reply) => process.send!({ type: m.type, id: m.id, ...reply }),
        (err: unknown) => process.send!({ type: m.type, id: m.id, error: err instanceof Error ? err.stack ?? err.message : String(err) }),
      );
  });
}
