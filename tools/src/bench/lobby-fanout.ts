/**
 * Lobby message fan-out over the real platform: one member sends a lobby message over HTTP and
 * all 100 members (the sender too) receive LOBBY_MESSAGE_CREATE on their Gateway sockets. Latency
 * is send-start to each receipt. The peer is the floor for the same job: a bare `ws` server
 * broadcasting a frame of the same size to 100 sockets, measured in the same process and run.
 * Ours includes the HTTP request, validation, the SQLite write and the per-session framing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import WebSocket, { WebSocketServer } from 'ws';
import { startServer } from '@social-layer/server';
import { nowMs, percentile } from './stats.ts';
import type { BenchResult } from './types.ts';

const MEMBERS = 100;
const WARMUP = 20;
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 300);

interface Receiver {
  socket: WebSocket;
  /** Called with each received frame's content and the time it was parsed. */
  onContent?: (content: string, at: number) => void;
}

async function json(method: string, url: string, token: string | null, body?: unknown): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

async function measureOurs(): Promise<{ receipts: number[]; lastReceipts: number[]; frameBytes: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'sl-bench-'));
  const server = await startServer({ port: 0, dataDir: dir, serveSamples: false, logLevel: 'error', heartbeatIntervalMs: 60_000, rateLimits: false });
  const receivers: Receiver[] = [];
  try {
    const app = await server.createApplication({ name: 'bench' });
    const api = `${server.url}/api/v10`;
    const tokens: string[] = [];
    for (let i = 0; i < MEMBERS; i++) {
      const t = await json('POST', `${api}/partner-sdk/token`, null, { client_id: app.id, external_auth_type: 'DEVICE_ID', external_auth_token: randomBytes(16).toString('hex') });
      tokens.push(t.access_token);
    }
    let lobbyId = '';
    for (const token of tokens) lobbyId = (await json('PUT', `${api}/lobbies`, token, { secret: 'bench-lobby' })).id;

    let frameBytes = 0;
    await Promise.all(
      tokens.map(
        (token) =>
          new Promise<void>((resolve, reject) => {
            const socket = new WebSocket(`${server.url.replace('http', 'ws')}/gateway?v=10&encoding=json`);
            const r: Receiver = { socket };
            receivers.push(r);
            socket.on('error', reject);
            socket.on('message', (data) => {
              const text = data.toString();
              const f = JSON.parse(text);
              if (f.op === 10) socket.send(JSON.stringify({ op: 2, d: { token, properties: { os: 'linux', browser: 'bench', device: 'bench' } } }));
              else if (f.t === 'READY') resolve();
              else if (f.t === 'LOBBY_MESSAGE_CREATE') {
                frameBytes = text.length;
                r.onContent?.(f.d.content, nowMs());
              }
            });
          }),
      ),
    );

    const receipts: number[] = [];
    const lastReceipts: number[] = [];
    for (let i = 0; i < WARMUP + MESSAGES; i++) {
      const content = `move ${i} x=${(i * 37) % 800} y=${(i * 53) % 600}`;
      const times: number[] = [];
      const done = new Promise<void>((resolve) => {
        for (const r of receivers) {
          r.onContent = (c, at) => {
            if (c !== content) return;
            times.push(at);
            if (times.length === MEMBERS) resolve();
          };
        }
      });
      const t0 = nowMs();
      await json('POST', `${api}/lobbies/${lobbyId}/messages`, tokens[0]!, { content });
      await done;
      if (i >= WARMUP) {
        for (const t of times) receipts.push(t - t0);
        lastReceipts.push(Math.max(...times) - t0);
      }
    }
    return { receipts, lastReceipts, frameBytes };
  } finally {
    for (const r of receivers) r.socket.terminate();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measureRawWs(frameBytes: number): Promise<{ receipts: number[]; lastReceipts: number[] }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const port = (wss.address() as { port: number }).port;
  const handlers: ((content: string, at: number) => void)[] = [];
  const clients: WebSocket[] = [];
  const accepted = new Promise<void>((resolve) => {
    let n = 0;
    wss.on('connection', () => {
      if (++n === MEMBERS) resolve();
    });
  });
  for (let i = 0; i < MEMBERS; i++) {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`);
    const idx = i;
    ws.on('message', (data) => {
      const f = JSON.parse(data.toString());
      handlers[idx]?.(f.d.content, nowMs());
    });
    clients.push(ws);
  }
  await accepted;
  const receipts: number[] = [];
  const lastReceipts: number[] = [];
  try {
    for (let i = 0; i < WARMUP + MESSAGES; i++) {
      const content = `move ${i}`;
      // Same envelope and size as our dispatch frame, so both sides move the same bytes.
      const base = { op: 0, t: 'LOBBY_MESSAGE_CREATE', s: i + 1, d: { content, pad: '' } };
      base.d.pad = 'x'.repeat(Math.max(0, frameBytes - JSON.stringify(base).length));
      const frame = JSON.stringify(base);
      const times: number[] = [];
      const done = new Promise<void>((resolve) => {
        for (let c = 0; c < MEMBERS; c++) {
          handlers[c] = (got, at) => {
            if (got !== content) return;
            times.push(at);
            if (times.length === MEMBERS) resolve();
          };
        }
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

export default async function lobbyFanout(): Promise<BenchResult> {
  const ours = await measureOurs();
  const raw = await measureRawWs(ours.frameBytes);
  const f = {
    members: MEMBERS,
    messages: MESSAGES,
    frame_bytes: ours.frameBytes,
    ours_p50_ms: percentile(ours.receipts, 50),
    ours_p99_ms: percentile(ours.receipts, 99),
    ours_last_member_p50_ms: percentile(ours.lastReceipts, 50),
    ours_last_member_p99_ms: percentile(ours.lastReceipts, 99),
    raw_ws_p50_ms: percentile(raw.receipts, 50),
    raw_ws_p99_ms: percentile(raw.receipts, 99),
    raw_ws_last_member_p50_ms: percentile(raw.lastReceipts, 50),
    raw_ws_last_member_p99_ms: percentile(raw.lastReceipts, 99),
  };
  return {
    description: `Lobby message fan-out to ${MEMBERS} members over the real Gateway (HTTP send -> every member's dispatch), vs raw ws broadcast of the same frame to ${MEMBERS} sockets.`,
    figures: {
      ...f,
      ratio_p50_ours_over_raw: f.ours_p50_ms / f.raw_ws_p50_ms,
      ratio_p99_ours_over_raw: f.ours_p99_ms / f.raw_ws_p99_ms,
      ratio_last_member_p50_ours_over_raw: f.ours_last_member_p50_ms / f.raw_ws_last_member_p50_ms,
    },
    notes: [
      'Senders, server and receivers share this machine\'s cores; both sides are measured the same way in one process.',
      'Ours = HTTP request + validation + SQLite insert + per-session sequencing; raw ws = socket writes only (the floor).',
      'HTTP rate limits are off here: one sender posts far faster than a player would.',
    ],
  };
}
