/**
 * Guild messages over the real platform (issue 11), on SQLite and on PostgreSQL:
 * - create throughput: `POST /channels/{id}/messages` from 100 members at once (8 requests in
 *   flight), each message validated, written with its search index row in one transaction and
 *   fanned out as MESSAGE_CREATE to the channel's 100 members' Gateway sessions;
 * - fan-out latency: one message at a time, from the request to each member's MESSAGE_CREATE.
 * The peer is the floor of the same jobs on a bare `ws` server: a frame of the same size
 * broadcast to 100 sockets (latency), and as many frames as fast as it can (throughput).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket, { WebSocketServer } from 'ws';
import { type DatabaseConfig, openDatabase, startServer } from '@social-layer/server';
import { apiJson, measureRawBroadcast, measureRounds, openGatewaySession, paddedFrame } from './fanout.ts';
import { nowMs, percentile } from './stats.ts';
import type { BenchResult } from './types.ts';
import { profiled } from './lobby/profile.ts';

const MEMBERS = Number(process.env.BENCH_MESSAGE_MEMBERS ?? 100);
const WARMUP = 10;
const ROUNDS = Number(process.env.BENCH_MESSAGE_ROUNDS ?? 100);
const THROUGHPUT_MESSAGES = Number(process.env.BENCH_MESSAGE_COUNT ?? 2000);
const IN_FLIGHT = 8;
const GUILDS_INTENT = 1 << 0;
const GUILD_MESSAGES_INTENT = 1 << 9;
const PG_URL = process.env.SOCIAL_LAYER_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Ours {
  perSecond: number;
  receipts: number[];
  lastReceipts: number[];
  frameBytes: number;
}

async function measureOurs(database: DatabaseConfig): Promise<Ours> {
  const dir = mkdtempSync(join(tmpdir(), 'sl-bench-msg-'));
  const server = await startServer({ port: 0, dataDir: dir, serveSamples: false, logLevel: 'error', heartbeatIntervalMs: 600_000, rateLimits: false, database });
  const sockets: WebSocket[] = [];
  try {
    const app = await server.createApplication({ name: 'bench' });
    const api = `${server.url}/api/v10`;
    const wsUrl = `${server.url.replace('http', 'ws')}/gateway?v=10&encoding=json`;
    const users: { id: string; token: string }[] = [];
    for (let i = 0; i < MEMBERS; i++) {
      const { user } = await server.store.users.findOrCreateProvisional(app.id, 'DEVICE_ID', `bench-${i}`, `Member ${i}`);
      users.push({ id: user.id, token: await server.store.tokens.issue(user.id, app.id, ['identify', 'guilds'], 3600) });
    }
    const owner = users[0]!;
    const guild = await apiJson('POST', `${api}/guilds`, owner.token, { name: 'Bench Guild' });
    await server.store.guilds.transaction(async (tx) => {
      for (const u of users.slice(1)) await server.store.guildMembers.add(tx, guild.id, u.id);
    });
    const channel = (await apiJson('GET', `${api}/guilds/${guild.id}/channels`, owner.token)).find((c: { type: number }) => c.type === 0);

    let frameBytes = 0;
    const receipt: { handler?: (key: string, at: number) => void } = {};
    let received = 0;
    let allReceived: (() => void) | undefined;
    let expected = Infinity;
    for (let i = 0; i < users.length; i += 25) {
      await Promise.all(users.slice(i, i + 25).map((u) => openGatewaySession(wsUrl, u.token, (t, d, text) => {
        if (t !== 'MESSAGE_CREATE') return;
        frameBytes = text.length;
        receipt.handler?.(d.content, nowMs());
        if (++received >= expected) allReceived?.();
      }, GUILDS_INTENT | GUILD_MESSAGES_INTENT).then((s) => sockets.push(s))));
    }

    // Latency: one message at a time, request to each member's MESSAGE_CREATE.
    const sample = await measureRounds({
      receivers: MEMBERS,
      warmup: WARMUP,
      rounds: ROUNDS,
      receipt,
      key: (i) => `latency message ${i}`,
      trigger: async (_i, content) => {
        await apiJson('POST', `${api}/channels/${channel.id}/messages`, owner.token, { content });
      },
    });

    // Throughput: members post THROUGHPUT_MESSAGES with IN_FLIGHT at once; done when every dispatch arrived.
    receipt.handler = undefined;
    received = 0;
    expected = THROUGHPUT_MESSAGES * MEMBERS;
    const delivered = new Promise<void>((r) => (allReceived = r));
    const t0 = nowMs();
    let next = 0;
    // BENCH_PROFILE: a CPU profile of this phase (lobby/profile.ts).
    await profiled(`messages-${database.dialect}`, async () => {
      await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
        while (next < THROUGHPUT_MESSAGES) {
          const n = next++;
          const u = users[n % users.length]!;
          await apiJson('POST', `${api}/channels/${channel.id}/messages`, u.token, { content: `throughput message ${n} with a few words to index` });
        }
      }));
      await delivered;
    });
    const seconds = (nowMs() - t0) / 1000;
    return { perSecond: THROUGHPUT_MESSAGES / seconds, receipts: sample.receipts, lastReceipts: sample.lastReceipts, frameBytes };
  } finally {
    for (const s of sockets) s.terminate();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
    if (database.dialect === 'postgres' && database.schema) {
      const handle = await openDatabase(database);
      await handle.db.schema.dropSchema(database.schema).ifExists().cascade().execute();
      await handle.close();
    }
  }
}

/** Raw ws throughput: frames of the same size broadcast to MEMBERS sockets until all arrived. */
async function rawThroughput(frameBytes: number): Promise<number> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const port = (wss.address() as { port: number }).port;
  const clients: WebSocket[] = [];
  let received = 0;
  const expected = THROUGHPUT_MESSAGES * MEMBERS;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((r) => (done = r));
  const connected = new Promise<void>((resolve) => {
    let n = 0;
    wss.on('connection', () => ++n === MEMBERS && resolve());
  });
  for (let i = 0; i < MEMBERS; i++) {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`);
    ws.on('message', (data) => {
      JSON.parse(data.toString());
      if (++received === expected) done();
    });
    clients.push(ws);
  }
  await connected;
  try {
    const t0 = nowMs();
    for (let n = 0; n < THROUGHPUT_MESSAGES; n++) {
      const frame = paddedFrame({ op: 0, t: 'MESSAGE_CREATE', s: n, d: { content: `throughput message ${n}`, pad: '' } } as { d: { pad: string } }, frameBytes);
      for (const ws of wss.clients) ws.send(frame);
      // Yield now and then so clients read while the server writes (as a server under load would).
      if (n % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    await finished;
    return THROUGHPUT_MESSAGES / ((nowMs() - t0) / 1000);
  } finally {
    for (const c of clients) c.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
  }
}

export default async function messages(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'sl-bench-msgdb-'));
  const figures: BenchResult['figures'] = { members: MEMBERS, latency_rounds: ROUNDS, throughput_messages: THROUGHPUT_MESSAGES, requests_in_flight: IN_FLIGHT };
  const notes = [
    'Ours = HTTP + validation + permission computation + insert with the search index row (FTS5 / tsvector) in one transaction + MESSAGE_CREATE to each member with the per-session intent and content filter; raw ws = socket writes and client parses only (the floor).',
    'Senders, server and the 100 receivers share this machine\'s cores.',
  ];
  try {
    const sqlite = await measureOurs({ dialect: 'sqlite', file: join(dir, 'bench.sqlite') });
    const raw = await measureRawBroadcast({
      sockets: MEMBERS, warmup: WARMUP, rounds: ROUNDS, key: (i) => `latency message ${i}`,
      frame: (i, content) => paddedFrame({ op: 0, t: 'MESSAGE_CREATE', s: i + 1, d: { content, pad: '' } } as { d: { pad: string } }, sqlite.frameBytes),
      extract: (f) => f.d.content,
    });
    const rawRate = await rawThroughput(sqlite.frameBytes);
    Object.assign(figures, {
      frame_bytes: sqlite.frameBytes,
      'raw ws: broadcasts/s to all members': rawRate,
      'raw ws: fan-out p50 ms': percentile(raw.receipts, 50),
      'raw ws: fan-out p99 ms': percentile(raw.receipts, 99),
      'raw ws: last member p50 ms': percentile(raw.lastReceipts, 50),
      'sqlite: messages/s (created and fanned out)': sqlite.perSecond,
      'sqlite: ratio messages/s ours over raw ws broadcasts/s': sqlite.perSecond / rawRate,
      'sqlite: fan-out p50 ms': percentile(sqlite.receipts, 50),
      'sqlite: fan-out p99 ms': percentile(sqlite.receipts, 99),
      'sqlite: last member p50 ms': percentile(sqlite.lastReceipts, 50),
      'sqlite: ratio fan-out p50 ours over raw ws': percentile(sqlite.receipts, 50) / percentile(raw.receipts, 50),
    });
    try {
      const pg = await measureOurs({ dialect: 'postgres', connectionString: PG_URL, schema: `bench_${randomBytes(4).toString('hex')}` });
      Object.assign(figures, {
        'postgres: messages/s (created and fanned out)': pg.perSecond,
        'postgres: ratio messages/s ours over raw ws broadcasts/s': pg.perSecond / rawRate,
        'postgres: fan-out p50 ms': percentile(pg.receipts, 50),
        'postgres: fan-out p99 ms': percentile(pg.receipts, 99),
        'postgres: last member p50 ms': percentile(pg.lastReceipts, 50),
        'postgres: ratio fan-out p50 ours over raw ws': percentile(pg.receipts, 50) / percentile(raw.receipts, 50),
      });
    } catch (err) {
      notes.push(`PostgreSQL not measured: ${(err as Error).message}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    description: `Guild messages: create throughput (${IN_FLIGHT} requests in flight, each message fanned out to ${MEMBERS} members' Gateway sessions) and MESSAGE_CREATE fan-out latency to ${MEMBERS} channel members, on SQLite and PostgreSQL, beside a bare ws broadcast of the same frame to ${MEMBERS} sockets.`,
    figures,
    notes,
  };
}
