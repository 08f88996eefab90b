/**
 * Presence fan-out over the real platform: one player updates their rich presence over HTTP (what
 * Client.updateRichPresence does) and all 500 of their online friends receive PRESENCE_UPDATE on
 * their Gateway sockets. The figure is update-start to the last friend's dispatch, per update. The
 * peer is the floor for the same job: a bare `ws` server broadcasting a frame of the same size to
 * 500 sockets, measured in the same process and run. Ours includes the HTTP request, validation,
 * the friends query, the per-application view and the per-session sequencing and framing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import WebSocket, { WebSocketServer } from 'ws';
import { startServer } from '@social-layer/server';
import { nowMs, percentile } from './stats.ts';
import type { BenchResult } from './types.ts';

const FRIENDS = Number(process.env.BENCH_FRIENDS ?? 500);
const WARMUP = 20;
const UPDATES = Number(process.env.BENCH_UPDATES ?? 200);

async function json(method: string, url: string, token: string | null, body?: unknown): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/** Opens a Gateway session and resolves at READY; `onDispatch` sees every later dispatch. */
function openSession(wsUrl: string, token: string, onDispatch: (t: string, d: any, text: string) => void): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl);
    socket.on('error', reject);
    socket.on('message', (data) => {
      const text = data.toString();
      const f = JSON.parse(text);
      if (f.op === 10) socket.send(JSON.stringify({ op: 2, d: { token, properties: { os: 'linux', browser: 'bench', device: 'bench' } } }));
      else if (f.t === 'READY') resolve(socket);
      else if (f.op === 0) onDispatch(f.t, f.d, text);
    });
  });
}

async function measureOurs(): Promise<{ receipts: number[]; lastReceipts: number[]; frameBytes: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'sl-bench-'));
  const server = await startServer({ port: 0, dataDir: dir, serveSamples: false, logLevel: 'error', heartbeatIntervalMs: 600_000, rateLimits: false });
  const sockets: WebSocket[] = [];
  try {
    const app = await server.createApplication({ name: 'bench' });
    const api = `${server.url}/api/v10`;
    const wsUrl = `${server.url.replace('http', 'ws')}/gateway?v=10&encoding=json`;
    const guest = async () => {
      const t = await json('POST', `${api}/partner-sdk/token`, null, { client_id: app.id, external_auth_type: 'DEVICE_ID', external_auth_token: randomBytes(16).toString('hex') });
      const me = await json('GET', `${api}/users/@me`, t.access_token);
      return { token: t.access_token as string, id: me.id as string };
    };
    const host = await guest();
    const friends: { token: string; id: string }[] = [];
    for (let i = 0; i < FRIENDS; i++) friends.push(await guest());
    // Setup writes the friendships straight into the store (the request/accept routes are
    // measured by the tests, not here); both rows of each pair, as accepting a request writes them.
    const now = Date.now();
    await server.store.relationships.transaction(async (tx) => {
      for (const f of friends) {
        await server.store.relationships.set(tx, { user_id: host.id, other_id: f.id, application_id: '0', type: 1, is_spam: 0, since: now });
        await server.store.relationships.set(tx, { user_id: f.id, other_id: host.id, application_id: '0', type: 1, is_spam: 0, since: now });
      }
    });

    let frameBytes = 0;
    let onState: ((state: string, at: number) => void) | undefined;
    await Promise.all(
      friends.map((f) =>
        openSession(wsUrl, f.token, (t, d, text) => {
          if (t !== 'PRESENCE_UPDATE' || d.user.id !== host.id) return;
          const state = d.activities[0]?.state;
          if (typeof state !== 'string') return;
          frameBytes = text.length;
          onState?.(state, nowMs());
        }).then((s) => sockets.push(s)),
      ),
    );
    sockets.push(await openSession(wsUrl, host.token, () => {}));

    const receipts: number[] = [];
    const lastReceipts: number[] = [];
    for (let i = 0; i < WARMUP + UPDATES; i++) {
      const state = `Round ${i}`;
      const times: number[] = [];
      const done = new Promise<void>((resolve) => {
        onState = (s, at) => {
          if (s !== state) return;
          times.push(at);
          if (times.length === FRIENDS) resolve();
        };
      });
      const t0 = nowMs();
      await json('PUT', `${api}/users/@me/activities`, host.token, {
        type: 0,
        state,
        details: 'Capture the flag',
        party: { id: 'bench-party', size: [1 + (i % 4), 4] },
        assets: { large_image: 'map-forest' },
      });
      await done;
      if (i >= WARMUP) {
        for (const t of times) receipts.push(t - t0);
        lastReceipts.push(Math.max(...times) - t0);
      }
    }
    return { receipts, lastReceipts, frameBytes };
  } finally {
    for (const s of sockets) s.terminate();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measureRawWs(frameBytes: number): Promise<{ receipts: number[]; lastReceipts: number[] }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const port = (wss.address() as { port: number }).port;
  let onState: ((state: string, at: number) => void) | undefined;
  const clients: WebSocket[] = [];
  const accepted = new Promise<void>((resolve) => {
    let n = 0;
    wss.on('connection', () => {
      if (++n === FRIENDS) resolve();
    });
  });
  for (let i = 0; i < FRIENDS; i++) {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`);
    ws.on('message', (data) => {
      const f = JSON.parse(data.toString());
      onState?.(f.d.activities[0].state, nowMs());
    });
    clients.push(ws);
  }
  await accepted;
  const receipts: number[] = [];
  const lastReceipts: number[] = [];
  try {
    for (let i = 0; i < WARMUP + UPDATES; i++) {
      const state = `Round ${i}`;
      // Same envelope and size as our dispatch frame, so both sides move the same bytes.
      const base = { op: 0, t: 'PRESENCE_UPDATE', s: i + 1, d: { user: { id: '1' }, status: 'online', activities: [{ state }], pad: '' } };
      base.d.pad = 'x'.repeat(Math.max(0, frameBytes - JSON.stringify(base).length));
      const frame = JSON.stringify(base);
      const times: number[] = [];
      const done = new Promise<void>((resolve) => {
        onState = (s, at) => {
          if (s !== state) return;
          times.push(at);
          if (times.length === FRIENDS) resolve();
        };
      });
      const t0 = nowMs();
      for (const ws of wss.clients) ws.send(frame);
      await done;
      if (i >= WARMUP) {
        for (const t of times) receipts.push(t - t0);
        lastReceipts.push(Math.max(...times) - t0);
      }
    }
  } finally {
    for (const c of clients) c.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
  }
  return { receipts, lastReceipts };
}

export default async function presenceFanout(): Promise<BenchResult> {
  const ours = await measureOurs();
  const raw = await measureRawWs(ours.frameBytes);
  const f = {
    friends: FRIENDS,
    updates: UPDATES,
    frame_bytes: ours.frameBytes,
    ours_last_friend_p50_ms: percentile(ours.lastReceipts, 50),
    ours_last_friend_p99_ms: percentile(ours.lastReceipts, 99),
    ours_any_friend_p50_ms: percentile(ours.receipts, 50),
    ours_any_friend_p99_ms: percentile(ours.receipts, 99),
    raw_ws_last_friend_p50_ms: percentile(raw.lastReceipts, 50),
    raw_ws_last_friend_p99_ms: percentile(raw.lastReceipts, 99),
    raw_ws_any_friend_p50_ms: percentile(raw.receipts, 50),
    raw_ws_any_friend_p99_ms: percentile(raw.receipts, 99),
  };
  return {
    description: `Presence fan-out to ${FRIENDS} online friends over the real Gateway (HTTP updateRichPresence -> the last friend's PRESENCE_UPDATE), vs raw ws broadcast of the same frame to ${FRIENDS} sockets.`,
    figures: {
      ...f,
      ratio_last_friend_p50_ours_over_raw: f.ours_last_friend_p50_ms / f.raw_ws_last_friend_p50_ms,
      ratio_last_friend_p99_ours_over_raw: f.ours_last_friend_p99_ms / f.raw_ws_last_friend_p99_ms,
    },
    notes: [
      'Sender, server and the 500 receiving sockets share this machine\'s cores; both sides are measured the same way in one process.',
      'Ours = HTTP request + activity validation + friends query + per-application presence view + per-session sequencing; raw ws = socket writes only (the floor).',
      'HTTP rate limits are off here (rateLimits: false): one player updates presence far faster than the 20 per 10 s a player gets.',
      'Setup writes the 500 friendships straight into the store; the friend-request routes are covered by tests, not timed here.',
    ],
  };
}
