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
import type WebSocket from 'ws';
import { startServer } from '@social-layer/server';
import { apiJson, measureRawBroadcast, measureRounds, openGatewaySession, paddedFrame, type FanoutSample } from './fanout.ts';
import { nowMs, percentile } from './stats.ts';
import type { BenchResult } from './types.ts';

const MEMBERS = 100;
const WARMUP = 20;
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 300);

async function measureOurs(): Promise<FanoutSample & { frameBytes: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'sl-bench-'));
  const server = await startServer({ port: 0, dataDir: dir, serveSamples: false, logLevel: 'error', heartbeatIntervalMs: 60_000, rateLimits: false });
  const sockets: WebSocket[] = [];
  try {
    const app = await server.createApplication({ name: 'bench' });
    const api = `${server.url}/api/v10`;
    const tokens: string[] = [];
    for (let i = 0; i < MEMBERS; i++) {
      const t = await apiJson('POST', `${api}/partner-sdk/token`, null, { client_id: app.id, external_auth_type: 'DEVICE_ID', external_auth_token: randomBytes(16).toString('hex') });
      tokens.push(t.access_token);
    }
    let lobbyId = '';
    for (const token of tokens) lobbyId = (await apiJson('PUT', `${api}/lobbies`, token, { secret: 'bench-lobby' })).id;

    let frameBytes = 0;
    const receipt: { handler?: (key: string, at: number) => void } = {};
    const wsUrl = `${server.url.replace('http', 'ws')}/gateway?v=10&encoding=json`;
    for (const token of tokens) {
      sockets.push(
        await openGatewaySession(wsUrl, token, (t, d, text) => {
          if (t !== 'LOBBY_MESSAGE_CREATE') return;
          frameBytes = text.length;
          receipt.handler?.(d.content, nowMs());
        }),
      );
    }
    const sample = await measureRounds({
      receivers: MEMBERS,
      warmup: WARMUP,
      rounds: MESSAGES,
      receipt,
      key: (i) => `move ${i} x=${(i * 37) % 800} y=${(i * 53) % 600}`,
      trigger: async (_i, content) => {
        await apiJson('POST', `${api}/lobbies/${lobbyId}/messages`, tokens[0]!, { content });
      },
    });
    return { ...sample, frameBytes };
  } finally {
    for (const s of sockets) s.terminate();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function measureRawWs(frameBytes: number): Promise<FanoutSample> {
  return measureRawBroadcast({
    sockets: MEMBERS,
    warmup: WARMUP,
    rounds: MESSAGES,
    key: (i) => `move ${i}`,
    frame: (i, content) => paddedFrame({ op: 0, t: 'LOBBY_MESSAGE_CREATE', s: i + 1, d: { content, pad: '' } } as { d: { pad: string } }, frameBytes),
    extract: (f) => f.d.content,
  });
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
