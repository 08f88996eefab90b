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
const DRAIN_EVENTS = Number(process.env.BENCH_WEBHOOK_DRAIN_EVENTS ?? 2000);
/** The far receiver's answer delay (ms) for the in-flight window figures. */
const FAR_MS = Number(process.env.BENCH_WEBHOOK_FAR_MS ?? 5);
const WINDOW = 16;
const PG_URL = process.env.SOCIAL_LAYER_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Receiver {
  url: string;
  received: Map<string, number>;
  onReceive: (() => void) | null;
  close(): Promise<void>;
}

/** Answers 204 at once and notes when each event id arrived (no verification: the receiver is not what is measured). */
async function startReceiver(delayMs = 0): Promise<Receiver> {
  const received = new Map<string, number>();
  const self: Receiver = { url: '', received, onReceive: null, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = nowMs();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: string };
      if (body.id && !received.has(body.id)) received.set(body.id, at);
      const answer = () => {
        res.writeHead(204).end();
        self.onReceive?.();
      };
      // A receiver further away: the answer comes `delayMs` later (a network round trip).
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
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
    const produce = async (i: number): Promise<string> => {
      // The application has a webhook, so the event is recorded (record answers null only without one).
      const id = (await db.transaction().execute((tx) => repo.record(tx, app.id, 'LOBBY_MESSAGE_CREATE', { id: String(i), content: 'x'.repeat(64) })))!;
      committed.set(id, nowMs());
      return id;
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

    // Paced: a fixed rate, open loop: each commit starts at its due time whether or not the
    // previous one has finished (a closed loop measured the database's commit latency instead:
    // one PostgreSQL commit after another tops out near 650/s here).
    const paced: Promise<string>[] = [];
    const pacedCount = PACED_RATE * PACED_SECONDS;
    const pacedStart = nowMs();
    for (let i = 0; i < pacedCount; i++) {
      const due = pacedStart + (i * 1000) / PACED_RATE;
      const wait = due - nowMs();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      paced.push(produce(EVENTS + i));
    }
    const pacedIds = await Promise.all(paced);
    const pacedElapsed = (nowMs() - pacedStart) / 1000;
    await until(() => receiver.received.size >= EVENTS + pacedCount, 120_000);
    const pacedLatency = pacedIds.map((id) => receiver.received.get(id)! - committed.get(id)!);
    return {
      eventsPerSec: EVENTS / ((last - start) / 1000),
      loadedP50: percentile(loaded, 50),
      loadedP99: percentile(loaded, 99),
      pacedRate: pacedCount / pacedElapsed,
      pacedP50: percentile(pacedLatency, 50),
      pacedP99: percentile(pacedLatency, 99),
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

/**
 * The worker alone: a backlog of DRAIN_EVENTS is committed while the application's lease is held
 * (so nothing is sent yet), then the lease is let go and the time to the last receipt is taken.
 * No producer competes for the CPU; `delayMs` makes the receiver answer later, as one across a
 * network would, and `maxInFlight` is the worker's window per application.
 */
async function measureDrain(database: DatabaseConfig, dataDir: string, o: { delayMs: number; maxInFlight: number }): Promise<number> {
  const server = await startServer({ port: 0, dataDir, database, serveSamples: false, logLevel: 'error', rateLimits: false, webhooks: { allowLoopback: true, pollIntervalMs: 20, maxInFlight: o.maxInFlight } });
  const receiver = await startReceiver(o.delayMs);
  try {
    const app = await server.createApplication({ name: 'bench-drain' });
    await server.webhooks.update(app.id, { event_webhooks_url: receiver.url, event_webhooks_types: ['LOBBY_MESSAGE_CREATE'] });
    const repo = server.store.webhookEvents;
    const db = server.store.database.db;
    await db.updateTable('webhook_settings').set({ lease_owner: 'bench-hold', lease_until: Date.now() + 600_000 }).where('application_id', '=', app.id).execute();
    for (let i = 0; i < DRAIN_EVENTS; i += 100) {
      await db.transaction().execute(async (tx) => {
        for (let j = i; j < Math.min(DRAIN_EVENTS, i + 100); j++) await repo.record(tx, app.id, 'LOBBY_MESSAGE_CREATE', { id: String(j), content: 'x'.repeat(64) });
      });
    }
    const start = nowMs();
    await repo.releaseLease(app.id, 'bench-hold');
    await until(() => receiver.received.size >= DRAIN_EVENTS, 300_000);
    return DRAIN_EVENTS / ((Math.max(...receiver.received.values()) - start) / 1000);
  } finally {
    await receiver.close();
    await server.close();
    if (database.dialect === 'postgres' && database.schema) {
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
    figures['sqlite: drain events/s (worker alone, 1 in flight)'] = await measureDrain({ dialect: 'sqlite', file: join(dir, 'drain.sqlite') }, dir, { delayMs: 0, maxInFlight: 1 });
    figures[`sqlite: drain events/s (receiver answers in ${FAR_MS} ms, 1 in flight)`] = await measureDrain({ dialect: 'sqlite', file: join(dir, 'far1.sqlite') }, dir, { delayMs: FAR_MS, maxInFlight: 1 });
    figures[`sqlite: drain events/s (receiver answers in ${FAR_MS} ms, ${WINDOW} in flight)`] = await measureDrain({ dialect: 'sqlite', file: join(dir, 'far16.sqlite') }, dir, { delayMs: FAR_MS, maxInFlight: WINDOW });
    const notes = [
      `${EVENTS} events sustained by ${PRODUCERS} producers in the server's process, then ${PACED_SECONDS} s paced open-loop at ${PACED_RATE}/s; one application, delivered in order, one request at a time (the default).`,
      `drain: ${DRAIN_EVENTS} events committed while the application's lease is held, then delivered by the worker alone; the far-receiver figures compare the default window (1) with webhooks.maxInFlight ${WINDOW}.`,
    ];
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
      figures['postgres: drain events/s (worker alone, 1 in flight)'] = await measureDrain({ dialect: 'postgres', connectionString: PG_URL, schema: `bench_${randomBytes(4).toString('hex')}` }, dir, { delayMs: 0, maxInFlight: 1 });
    } catch (err) {
      notes.push(`PostgreSQL not measured: ${(err as Error).message}`);
    }
    return { description: 'Webhook delivery: outbox commit to a signed POST at a local receiver (SQLite and PostgreSQL, one node), against a bare sign+POST loop.', figures, notes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
