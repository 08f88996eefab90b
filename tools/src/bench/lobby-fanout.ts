/**
 * Lobby message fan-out over the real platform: one member sends a lobby message over HTTP and
 * all 100 members (the sender too) receive LOBBY_MESSAGE_CREATE on their Gateway sockets. Latency
 * is send-start to each receipt. The peer is the floor for the same job: a bare `ws` server
 * broadcasting a frame of the same size to 100 loopback sockets, alive beside ours in the same
 * process, the two taking turns round by round (lobby/interleave.ts).
 * Ours includes the HTTP request, validation, the SQLite write and the per-session framing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type WebSocket from 'ws';
import { startServer } from '@social-layer/server';
import { apiJson, openGatewaySession, paddedFrame } from './fanout.ts';
import { nowMs, percentile } from './stats.ts';
import type { BenchResult } from './types.ts';
import { interleavedRounds, rawBroadcaster, type Receipt } from './lobby/interleave.ts';
import { closeHttp, postJson } from './lobby/http.ts';
import { profiled } from './lobby/profile.ts';

const MEMBERS = Number(process.env.BENCH_LOBBY_MEMBERS ?? 100);
const WARMUP = 30;
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 300);

export default async function lobbyFanout(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'sl-bench-'));
  const server = await startServer({ port: 0, dataDir: dir, serveSamples: false, logLevel: 'error', heartbeatIntervalMs: 60_000, rateLimits: false });
  const sockets: WebSocket[] = [];
  let raw: Awaited<ReturnType<typeof rawBroadcaster>> | undefined;
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
    const ours: Receipt = {};
    const wsUrl = `${server.url.replace('http', 'ws')}/gateway?v=10&encoding=json`;
    for (const token of tokens) {
      sockets.push(
        await openGatewaySession(wsUrl, token, (t, d, text) => {
          if (t !== 'LOBBY_MESSAGE_CREATE') return;
          frameBytes = text.length;
          ours.handler?.(d.content, nowMs());
        }),
      );
    }
    raw = await rawBroadcaster(MEMBERS, (f) => f.d.content);
    const peer = raw;
    const sides = [
      { name: 'ours', receivers: MEMBERS, receipt: ours, trigger: (_i: number, content: string) => postJson('POST', `${api}/lobbies/${lobbyId}/messages`, tokens[0]!, { content }) },
      {
        name: 'raw',
        receivers: MEMBERS,
        receipt: peer.receipt,
        // Same bytes as our latest frame (known after the first warm-up round of ours).
        trigger: (i: number, content: string) => peer.broadcast(paddedFrame({ op: 0, t: 'LOBBY_MESSAGE_CREATE', s: i + 1, d: { content, pad: '' } } as { d: { pad: string } }, frameBytes)),
      },
    ];
    const key = (side: string, i: number) => `move ${side} ${i} x=${(i * 37) % 800} y=${(i * 53) % 600}`;
    await interleavedRounds(sides, WARMUP, 0, (side, i) => `warm ${key(side, i)}`);
    const samples = await profiled('lobby-fanout', () => interleavedRounds(sides, 0, MESSAGES, key));
    const o = samples.ours!;
    const r = samples.raw!;
    const f = {
      members: MEMBERS,
      messages: MESSAGES,
      frame_bytes: frameBytes,
      ours_p50_ms: percentile(o.receipts, 50),
      ours_p99_ms: percentile(o.receipts, 99),
      ours_last_member_p50_ms: percentile(o.lastReceipts, 50),
      ours_last_member_p99_ms: percentile(o.lastReceipts, 99),
      ours_http_response_p50_ms: percentile(o.triggerDone, 50),
      ours_cpu_per_message_p50_ms: percentile(o.cpu, 50),
      raw_ws_p50_ms: percentile(r.receipts, 50),
      raw_ws_p99_ms: percentile(r.receipts, 99),
      raw_ws_last_member_p50_ms: percentile(r.lastReceipts, 50),
      raw_ws_last_member_p99_ms: percentile(r.lastReceipts, 99),
      raw_ws_cpu_per_broadcast_p50_ms: percentile(r.cpu, 50),
    };
    const ratioP99 = f.ours_p99_ms / f.raw_ws_p99_ms;
    return {
      description: `Lobby message fan-out to ${MEMBERS} members over the real Gateway (HTTP send -> every member's dispatch), vs raw ws broadcast of the same frame to ${MEMBERS} sockets; rounds interleaved.`,
      figures: {
        ...f,
        ratio_p50_ours_over_raw: f.ours_p50_ms / f.raw_ws_p50_ms,
        ratio_p99_ours_over_raw: ratioP99,
        ratio_last_member_p50_ours_over_raw: f.ours_last_member_p50_ms / f.raw_ws_last_member_p50_ms,
        ratio_last_member_p99_ours_over_raw: f.ours_last_member_p99_ms / f.raw_ws_last_member_p99_ms,
        ratio_cpu_ours_over_raw: f.ours_cpu_per_message_p50_ms / f.raw_ws_cpu_per_broadcast_p50_ms,
        target_p99_within_1_5x_raw: ratioP99 <= 1.5 ? 'met' : 'not met',
      },
      notes: [
        'Sender, server, receivers and the raw peer share one process and this machine\'s cores; ours and raw alternate round by round.',
        'Ours = HTTP request + validation + SQLite insert + per-session sequencing; raw ws = socket writes only (the floor).',
        `HTTP rate limits are off here: one sender posts far faster than a player would. Sender's HTTP client: ${process.env.BENCH_HTTP === 'fetch' ? 'fetch' : 'node:http keep-alive'}.`,
      ],
    };
  } finally {
    closeHttp();
    for (const s of sockets) s.terminate();
    await raw?.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
