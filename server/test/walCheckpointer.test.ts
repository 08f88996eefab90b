/**
 * WAL checkpoints on their own thread (src/storage/walCheckpointer.ts), on real SQLite files:
 * the main connection never checkpoints while the worker lives, the worker keeps the WAL copied
 * back, nothing written is lost, closing leaves no WAL behind, and a failed worker hands
 * checkpointing back to the main connection.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../src/storage/database.ts';
import { startServer } from '../src/startServer.ts';

let dir: string;
let file: string;
const opened: OpenDatabase[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sl-wal-'));
  file = join(dir, 'db.sqlite');
});

afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

async function open(extra: { checkpointIntervalMs?: number; checkpoints?: 'background' | 'inline'; onCheckpointFallback?: (r: string) => void } = {}): Promise<OpenDatabase> {
  const d = await openDatabase({ dialect: 'sqlite', file, ...extra });
  opened.push(d);
  return d;
}

const autocheckpoint = async (d: OpenDatabase) => (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(d.db)).rows[0]!.wal_autocheckpoint;

/** Writes `n` rows of about 2 KB, one transaction each: at least one WAL frame per row. */
async function writeRows(d: OpenDatabase, n: number, from = 0): Promise<void> {
  await sql`create table if not exists filler (id integer primary key, body text not null)`.execute(d.db);
  for (let i = from; i < from + n; i++) await sql`insert into filler (id, body) values (${i}, ${`row ${i} `.padEnd(2000, 'x')})`.execute(d.db);
}

describe('WAL checkpoints on a worker thread', () => {
  it('the main connection never checkpoints itself; the worker copies the WAL back', async () => {
    const d = await open({ checkpointIntervalMs: 60_000 });
    expect(d.checkpointer).toBeDefined();
    expect(await autocheckpoint(d)).toBe(0);
    await writeRows(d, 1_000);
    // Left to itself SQLite would have checkpointed at 1,000 pages; with autocheckpoint off and the
    // worker's interval a minute away, every frame is still waiting in the WAL.
    const before = await d.checkpointer!.checkpointNow();
    expect(before.busy).toBe(0);
    expect(before.log).toBeGreaterThan(1_000);
    expect(before.checkpointed).toBe(before.log);
    // Nothing left to copy right after.
    const again = await d.checkpointer!.checkpointNow();
    expect(again.checkpointed).toBe(again.log);
  });

  it('checkpoints on its interval while the main connection keeps writing, and loses nothing', async () => {
    const d = await open({ checkpointIntervalMs: 10 });
    // Three bursts of 300 one-row commits (about 900 WAL frames each), with time between them for
    // the worker's timer to copy everything back (a busy machine's fsync of 3.6 MB included).
    // After a full checkpoint the next commit restarts the WAL from its start, so the file stays
    // the size of one burst; without checkpoints it would hold all three.
    await writeRows(d, 300);
    await new Promise((r) => setTimeout(r, 300));
    const sizeAfterFirst = statSync(`${file}-wal`).size;
    await writeRows(d, 300, 300);
    await new Promise((r) => setTimeout(r, 300));
    await writeRows(d, 300, 600);
    const sizeAfterThird = statSync(`${file}-wal`).size;
    expect(sizeAfterThird).toBeLessThan(sizeAfterFirst * 1.3);
    const count = await sql<{ n: number }>`select count(*) as n from filler`.execute(d.db);
    expect(count.rows[0]!.n).toBe(900);
    await d.close();
    opened.splice(opened.indexOf(d), 1);
    // Closed: the worker's connection went first, so the main one, closing last, removed the WAL.
    expect(existsSync(`${file}-wal`)).toBe(false);
    const reopened = new BetterSqlite3(file, { readonly: true });
    try {
      expect((reopened.prepare('select count(*) as n from filler').get() as { n: number }).n).toBe(900);
      expect((reopened.prepare('select body from filler where id = 899').get() as { body: string }).body.startsWith('row 899 ')).toBe(true);
    } finally {
      reopened.close();
    }
  });

  it('a worker that dies hands checkpointing back to the main connection', async () => {
    const reasons: string[] = [];
    const d = await open({ checkpointIntervalMs: 60_000, onCheckpointFallback: (r) => reasons.push(r) });
    expect(await autocheckpoint(d)).toBe(0);
    // What a crash in the worker looks like from here: it exits without being asked to.
    await (d.checkpointer as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await new Promise((r) => setTimeout(r, 20));
    expect(d.checkpointer!.fallenBack).toBe(true);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/worker exited/);
    expect(await autocheckpoint(d)).toBe(1000);
    // Writes go on, and the main connection checkpoints them itself every 1,000 pages: the WAL
    // restarts instead of growing (3,000 one-row commits would leave over 12 MB in it otherwise).
    await writeRows(d, 3_000);
    expect(statSync(`${file}-wal`).size).toBeLessThan(6 * 1024 * 1024);
    const r = await d.checkpointer!.checkpointNow();
    expect(r.checkpointed).toBe(r.log);
  });

  it('inline checkpoints (the CLI) and in-memory databases start no worker', async () => {
    const inline = await open({ checkpoints: 'inline' });
    expect(inline.checkpointer).toBeUndefined();
    expect(await autocheckpoint(inline)).toBe(1000);
    const memory = await openDatabase({ dialect: 'sqlite', file: ':memory:' });
    opened.push(memory);
    expect(memory.checkpointer).toBeUndefined();
  });

  it('a server on a SQLite file closes without leaving a WAL (the worker\'s connection closes before the server\'s)', async () => {
    const server = await startServer({ port: 0, dataDir: dir, serveSamples: false, logLevel: 'error' });
    const walFile = join(dir, 'social-layer.sqlite-wal');
    try {
      const app = await server.createApplication({ name: 'wal' });
      expect(app.id).toMatch(/^\d+$/);
      expect(existsSync(walFile)).toBe(true);
    } finally {
      await server.close();
    }
    expect(existsSync(walFile)).toBe(false);
  });
});
