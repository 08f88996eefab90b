/**
 * SQLite WAL checkpoints on a thread of their own.
 *
 * With SQLite's default (`wal_autocheckpoint = 1000` pages), the commit that takes the WAL past
 * 1000 pages copies the whole WAL back into the database file and syncs both, on the thread that
 * committed: ours is the event loop. In `lobby-fanout` that was every ~292nd message (rounds 18,
 * 312, 604 and 902 of a 1,000-round run, in two runs; so about 3.4 pages per message's commit),
 * each round with about 2 ms of the server's CPU and 3.6-4.4 ms of latency. Here the main
 * connection never checkpoints; a worker thread with its own connection runs
 * `wal_checkpoint(PASSIVE)` every `intervalMs`, which copies what is committed without blocking
 * the main connection's readers or its writer. The WAL is reset by the main connection's next
 * write once a checkpoint has caught up, so it stays near one interval's worth of writes.
 *
 * Durability is unchanged (synchronous = NORMAL syncs at checkpoints either way; here that is
 * every interval with writes instead of every 1000 pages). If the worker cannot start or dies,
 * the main connection goes back to checkpointing itself, so the WAL never grows unchecked.
 *
 * The worker is a CommonJS string run with `eval`: the server runs as TypeScript sources through
 * tsx and vitest and as built JavaScript when published, and a worker file would need a path
 * that is right in all three. It loads the same better-sqlite3 the server resolved.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

export interface WalCheckpointOptions {
  /** How often the worker checkpoints. Default 500 ms. */
  intervalMs?: number;
  /** Told when the worker fails and the main connection checkpoints again (never told a path's contents). */
  onFallback?: (reason: string) => void;
}

/** What `PRAGMA wal_checkpoint` answers: `log` frames in the WAL, `checkpointed` of them copied. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/** SQLite's own default, restored on the main connection when the worker is gone. */
const AUTOCHECKPOINT_PAGES = 1000;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
const checkpoint = () => db.pragma('wal_checkpoint(PASSIVE)')[0];
const timer = setInterval(() => {
  try { checkpoint(); } catch (err) { parentPort.postMessage({ type: 'failed', message: String(err && err.message || err) }); }
}, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m.type === 'now') {
    try { parentPort.postMessage({ type: 'result', id: m.id, result: checkpoint() }); }
    catch (err) { parentPort.postMessage({ type: 'result', id: m.id, error: String(err && err.message || err) }); }
  } else if (m.type === 'close') {
    clearInterval(timer);
    db.close();
    parentPort.close();
  }
});
`;

export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (r: CheckpointResult) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private closing = false;
  private fellBack = false;
  private readonly exited: Promise<void>;

  constructor(private readonly main: BetterSqlite3.Database, file: string, private readonly options: WalCheckpointOptions = {}) {
    // Off first: a checkpoint the main connection starts itself is what this class exists to avoid.
    main.pragma('wal_autocheckpoint = 0');
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver, file, intervalMs: options.intervalMs ?? 500 },
      // It allocates next to nothing; small heap limits keep its reservations small too.
      resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1 },
    });
    // A node with nothing else to do must still be able to exit.
    this.worker.unref();
    this.worker.on('message', (m: { type: string; id?: number; result?: CheckpointResult; error?: string; message?: string }) => {
      if (m.type === 'failed') this.fallBack(`checkpoint failed: ${m.message}`);
      else if (m.type === 'result') {
        const w = this.waiting.get(m.id!);
        this.waiting.delete(m.id!);
        if (m.error !== undefined) w?.reject(new Error(m.error));
        else w?.resolve(m.result!);
      }
    });
    this.worker.on('error', (err) => this.fallBack(`worker error: ${err.message}`));
    this.exited = new Promise<void>((resolve) =>
      this.worker.once('exit', (code) => {
        if (!this.closing) this.fallBack(`worker exited (${code})`);
        for (const w of this.waiting.values()) w.reject(new Error('checkpoint worker is gone'));
        this.waiting.clear();
        resolve();
      }),
    );
  }

  /** Whether the main connection checkpoints itself again because the worker failed. */
  get fallenBack(): boolean {
    return this.fellBack;
  }

  /** One checkpoint now, on the worker (or on the main connection once the worker is gone); the tests use it. */
  async checkpointNow(): Promise<CheckpointResult> {
    // The worker is gone: the main connection checkpoints, as it would on its own.
    if (this.fellBack || this.closing) return (this.main.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[])[0]!;
    const id = this.nextId++;
    return new Promise<CheckpointResult>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'now', id });
    });
  }

  /** Stops the worker after its current checkpoint and closes its connection; the main connection's close then checkpoints the rest. */
  async close(): Promise<void> {
    if (this.closing) return this.exited;
    this.closing = true;
    this.worker.postMessage({ type: 'close' });
    const timeout = setTimeout(() => void this.worker.terminate(), 5_000);
    await this.exited;
    clearTimeout(timeout);
  }

  private fallBack(reason: string): void {
    if (this.fellBack || this.closing) return;
    this.fellBack = true;
    try {
      this.main.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    } catch {
      // The main connection is closed: nothing left to checkpoint.
    }
    this.options.onFallback?.(reason);
    void this.worker.terminate();
  }
}
