/**
 * Webhook delivery over the real platform (issue 15): events are committed to the outbox, each in
 * its own transaction as a producer would, and the delivery worker signs and POSTs them to a local
 * receiver. Figures per database: sustained events per second (first commit to last receipt,
 * producers going as fast as the database commits) and commit-to-receipt p50/p99, both under that
 * load and paced at a fixed rate (target: 1,000 events/s with p99 under 100 ms on one node).
 * The peer is the floor for the same job: a loop that signs the same bodies and POSTs them one by
 * one to the same receiver over keep-alive, with no database, in the same process and run.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DatabaseConfig, openDatabase, startServer } from '@social-layer/server';
import { nowMs, percentile } from './stats.ts';
import type { BenchResult } from './types.ts';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 3000);
const PACED_RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 1000);
const PACED_SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 3);
const PRODUCERS = 8;
const PG_URL = process.env.SOCIAL_LAYER_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Receiver {
  url: string;
  received: Map<string, number>;
  onReceive: (() => void) | null;
  close(): Promise<void>;
}

/** Answers 204 at once and notes when each event id arrived (no verification: the receiver is not what is measured). */
async function startReceiver(): Promise<Receiver> {
  const received = new Map<string, number>();
  const self: Receiver = { url: '', received, onReceive: null, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = nowMs();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: string };
      if (body.id && !received.has(body.id)) received.set(body.id, at);
      res.writeHead(204).end();
      self.onReceive?.();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  self.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  self.close = () => {
    server.closeAllConnections();
    return new Promise((r) => server.close(() => r()));
  };
  return self;
}

async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('webhook bench: deliveries did not finish in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function measureOurs(database: DatabaseConfig, dataDir: string) {
  const server = await startServer({ port: 0, dataDir, database, serveSamples: false, logLevel: 'error', rateLimits: false, webhooks: { allowLoopback: true, pollIntervalMs: 20 } });
  const receiver = await startReceiver();
  try {
    const app = await server.createApplication({ name: 'bench' });
    await server.webhooks.update(app.id, { event_webhooks_url: receiver.url, event_webhooks_types: ['LOBBY_MESSAGE_CREATE'] });
    const repo = server.store.webhookEvents;
    const db = server.store.database.db;
    const committed = new Map<string, number>();
    const produce = async (i: number) => {
      const id = await db.transaction().execute((tx) => repo.record(tx, app.id, 'LOBBY_MESSAGE_CREATE', { id: String(i), content: 'x'.repeat(64) }));
      committed.set(id, nowMs());
    };

    // Sustained: producers as fast as the database commits.
    let next = 0;
    const start = nowMs();
    await Promise.all(
      Array.from({ length: PRODUCERS }, async () => {
        while (next < EVENTS) await produce(next++);
      }),
    );
    await until(() => receiver.received.size >= EVENTS, 120_000);
    const last = Math.max(...receiver.received.values());
    const loaded = [...committed].map(([id, at]) => receiver.received.get(id)! - at);

    // Paced: a fixed rate, one commit every 1/rate seconds.
    const pacedIds: string[] = [];
    const pacedCount = PACED_RATE * PACED_SECONDS;
    const pacedStart = nowMs();
    for (let i = 0; i < pacedCount; i++) {
      const due = pacedStart + (i * 1000) / PACED_RATE;
      const wait = due - nowMs();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const before = committed.size;
      await produce(EVENTS + i);
      pacedIds.push([...committed.keys()][before]!);
    }
    const pacedElapsed = (nowMs() - pacedStart) / 1000;
    await until(() => receiver.received.size >= EVENTS + pacedCount, 120_000);
    const paced = pacedIds.map((id) => receiver.received.get(id)! - committed.get(id)!);
    return {
      eventsPerSec: EVENTS / ((last - start) / 1000),
      loadedP50: percentile(loaded, 50),
      loadedP99: percentile(loaded, 99),
      pacedRate: pacedCount / pacedElapsed,
      pacedP50: percentile(paced, 50),
      pacedP99: percentile(paced, 99),
    };
  } finally {
    await receiver.close();
    await server.close();
    if (database.dialect === 'postgres' && database.schema) {
      // The bench's own schema goes once the server (and its worker) has stopped.
      const handle = await openDatabase(database);
      await handle.db.schema.dropSchema(database.schema).ifExists().cascade().execute();
      await handle.close();
    }
  }
}

/** The floor: sign and POST the same envelope one at a time over keep-alive, no database. */
async function measurePeer(): Promise<number> {
  const receiver = await startReceiver();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const { privateKey: key } = generateKeyPairSync('ed25519');
  const url = new URL(receiver.url);
  try {
    const start = nowMs();
    for (let i = 0; i < EVENTS; i++) {
      const body = JSON.stringify({ version: 1, application_id: '1', type: 1, id: `p${i}`, event: { type: 'LOBBY_MESSAGE_CREATE', timestamp: new Date().toISOString(), data: { id: String(i), content: 'x'.repeat(64) } } });
      const ts = String(Math.floor(Date.now() / 1000));
      const sig = sign(null, Buffer.from(ts + body), key).toString('hex');
      await new Promise<void>((resolve, reject) => {
        const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-signature-ed25519': sig, 'x-signature-timestamp': ts } }, (res) => {
          res.resume();
          res.on('end', resolve);
        });
        req.on('error', reject);
        req.end(body);
      });
    }
    return EVENTS / ((nowMs() - start) / 1000);
  } finally {
    agent.destroy();
    await receiver.close();
  }
}

export default async function bench(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'sl-bench-webhooks-'));
  try {
    const peer = await measurePeer();
    const sqlite = await measureOurs({ dialect: 'sqlite', file: join(dir, 'bench.sqlite') }, dir);
    const figures: BenchResult['figures'] = {
      'peer: sign + POST loop, events/s': peer,
      'sqlite: sustained events/s': sqlite.eventsPerSec,
      'sqlite: ratio to peer': sqlite.eventsPerSec / peer,
      'sqlite: commit->receipt p50 ms (sustained)': sqlite.loadedP50,
      'sqlite: commit->receipt p99 ms (sustained)': sqlite.loadedP99,
      [`sqlite: paced rate events/s (asked ${PACED_RATE})`]: sqlite.pacedRate,
      'sqlite: commit->receipt p50 ms (paced)': sqlite.pacedP50,
      'sqlite: commit->receipt p99 ms (paced)': sqlite.pacedP99,
    };
    const notes = [`${EVENTS} events sustained by ${PRODUCERS} producers, then ${PACED_SECONDS} s paced at ${PACED_RATE}/s; one application (its queue is delivered in order, one request at a time).`];
    try {
      const pg = await measureOurs({ dialect: 'postgres', connectionString: PG_URL, schema: `bench_${randomBytes(4).toString('hex')}` }, dir);
      Object.assign(figures, {
        'postgres: sustained events/s': pg.eventsPerSec,
        'postgres: ratio to peer': pg.eventsPerSec / peer,
        'postgres: commit->receipt p50 ms (sustained)': pg.loadedP50,
        'postgres: commit->receipt p99 ms (sustained)': pg.loadedP99,
        [`postgres: paced rate events/s (asked ${PACED_RATE})`]: pg.pacedRate,
        'postgres: commit->receipt p50 ms (paced)': pg.pacedP50,
        'postgres: commit->receipt p99 ms (paced)': pg.pacedP99,
      });
    } catch (err) {
      notes.push(`PostgreSQL not measured: ${(err as Error).message}`);
    }
    return { description: 'Webhook delivery: outbox commit to a signed POST at a local receiver (SQLite and PostgreSQL, one node), against a bare sign+POST loop.', figures, notes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
