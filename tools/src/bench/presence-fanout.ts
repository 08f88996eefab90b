/**
 * Presence fan-out over the real platform: one player updates their rich presence over HTTP (what
 * Client.updateRichPresence does) and all 500 of their online friends receive PRESENCE_UPDATE on
 * their Gateway sockets. The figure is update-start to the last friend's dispatch, per update. The
 * peer is the floor for the same job: a bare `ws` server broadcasting a frame of the same size to
 * 500 sockets. Ours includes the HTTP request, validation, the friends query, the per-application
 * view and the per-session sequencing and framing.
 *
 * Two layouts, both printed:
 * - in one process (the unprefixed figures, as earlier sessions measured them): ours, then the
 *   peer, sender, server and receivers sharing this process;
 * - split (`split_`): the platform node and the peer's server in a process of their own
 *   (lobby/platformProcess.ts), the two taking turns update by update (lobby/interleave.ts), with
 *   that process's CPU per update: the server's cost of a presence update, which the capacity
 *   model (docs/capacity.md) needs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type WebSocket from 'ws';
import { startServer } from '@social-layer/server';
import { apiJson, guestToken, measureRawBroadcast, measureRounds, openGatewaySession, paddedFrame, type FanoutSample } from './fanout.ts';
import { nowMs, percentile } from './stats.ts';
import type { BenchResult } from './types.ts';
import { PlatformChild } from './lobby/platformChild.ts';
import { befriend } from './lobby/befriend.ts';
import { interleavedRounds, rawClients, type Receipt, type SideSample } from './lobby/interleave.ts';
import { closeHttp, postJson } from './lobby/http.ts';

const FRIENDS = Number(process.env.BENCH_FRIENDS ?? 500);
const WARMUP = 20;
const UPDATES = Number(process.env.BENCH_UPDATES ?? 200);

/** The updating player and FRIENDS others, as provisional accounts of `appId`: token and user ID each. */
async function players(api: string, appId: string): Promise<{ host: Player; friends: Player[] }> {
  const guest = async (): Promise<Player> => {
    const token = await guestToken(api, appId);
    const me = await apiJson('GET', `${api}/users/@me`, token);
    return { token, id: me.id as string };
  };
  const host = await guest();
  const friends: Player[] = [];
  for (let i = 0; i < FRIENDS; i++) friends.push(await guest());
  return { host, friends };
}

interface Player {
  token: string;
  id: string;
}

async function measureOurs(): Promise<FanoutSample & { frameBytes: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'sl-bench-'));
  const server = await startServer({ port: 0, dataDir: dir, serveSamples: false, logLevel: 'error', heartbeatIntervalMs: 600_000, rateLimits: false });
  const sockets: WebSocket[] = [];
  try {
    const app = await server.createApplication({ name: 'bench' });
    const api = `${server.url}/api/v10`;
    const wsUrl = `${server.url.replace('http', 'ws')}/gateway?v=10&encoding=json`;
    const { host, friends } = await players(api, app.id);
    await befriend(server, host.id, friends.map((f) => f.id));

    let frameBytes = 0;
    const receipt: { handler?: (key: string, at: number) => void } = {};
    await Promise.all(
      friends.map((f) =>
        openGatewaySession(wsUrl, f.token, (t, d, text) => {
          if (t !== 'PRESENCE_UPDATE' || d.user.id !== host.id) return;
          const state = d.activities[0]?.state;
          if (typeof state !== 'string') return;
          frameBytes = text.length;
          receipt.handler?.(state, nowMs());
        }).then((s) => sockets.push(s)),
      ),
    );
    sockets.push(await openGatewaySession(wsUrl, host.token, () => {}));

    const sample = await measureRounds({
      receivers: FRIENDS,
      warmup: WARMUP,
      rounds: UPDATES,
      receipt,
      key: (i) => `Round ${i}`,
      trigger: async (i, state) => {
        await apiJson('PUT', `${api}/users/@me/activities`, host.token, activity(i, state));
      },
    });
    return { ...sample, frameBytes };
  } finally {
    for (const s of sockets) s.terminate();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const activity = (i: number, state: string) => ({ type: 0, state, details: 'Capture the flag', party: { id: 'bench-party', size: [1 + (i % 4), 4] }, assets: { large_image: 'map-forest' } });
const rawFrame = (i: number, state: string, bytes: number) =>
  paddedFrame({ op: 0, t: 'PRESENCE_UPDATE', s: i + 1, d: { user: { id: '1' }, status: 'online', activities: [{ state }], pad: '' } } as { d: { pad: string } }, bytes);

/** The platform and the peer's server in a child process, the friends and the sender here; ours and the peer take turns. */
async function measureSplit(): Promise<Record<string, SideSample>> {
  const child = await PlatformChild.start();
  const sockets: WebSocket[] = [];
  let raw: Awaited<ReturnType<typeof rawClients>> | undefined;
  try {
    const api = `${child.url}/api/v10`;
    const wsUrl = `${child.url.replace('http', 'ws')}/gateway?v=10&encoding=json`;
    const { host, friends } = await players(api, child.appId);
    await child.befriend(host.id, friends.map((f) => f.id));
    const ours: Receipt = {};
    let frameBytes = 0;
    for (const f of friends) {
      sockets.push(
        await openGatewaySession(wsUrl, f.token, (t, d, text) => {
          if (t !== 'PRESENCE_UPDATE' || d.user.id !== host.id) return;
          const state = d.activities[0]?.state;
          if (typeof state !== 'string') return;
          frameBytes = text.length;
          ours.handler?.(state, nowMs());
        }),
      );
    }
    sockets.push(await openGatewaySession(wsUrl, host.token, () => {}));
    raw = await rawClients(child.rawPort, FRIENDS, (f) => f.d.activities[0].state);
    const cpu = () => child.cpuMs();
    // Round 0 starts with ours, so the peer's frame has our frame's size from its first round on.
    return await interleavedRounds(
      [
        { name: 'ours', receivers: FRIENDS, receipt: ours, cpu, trigger: (i, state) => postJson('PUT', `${api}/users/@me/activities`, host.token, activity(i, state)) },
        {
          name: 'raw',
          receivers: FRIENDS,
          receipt: raw.receipt,
          cpu,
          trigger: (i, state) => child.raw(rawFrame(i, state, frameBytes)),
        },
      ],
      WARMUP,
      UPDATES,
      (side, i) => `Round ${side} ${i}`,
    );
  } finally {
    closeHttp();
    for (const s of sockets) s.terminate();
    raw?.close();
    await child.stop();
  }
}

function measureRawWs(frameBytes: number): Promise<FanoutSample> {
  return measureRawBroadcast({
    sockets: FRIENDS,
    warmup: WARMUP,
    rounds: UPDATES,
    key: (i) => `Round ${i}`,
    frame: (i, state) => rawFrame(i, state, frameBytes),
    extract: (f) => f.d.activities[0].state,
  });
}

export default async function presenceFanout(): Promise<BenchResult> {
  const split = await measureSplit();
  const ours = await measureOurs();
  const raw = await measureRawWs(ours.frameBytes);
  const so = split.ours!;
  const sr = split.raw!;
  const sf = {
    split_ours_last_friend_p50_ms: percentile(so.lastReceipts, 50),
    split_ours_last_friend_p99_ms: percentile(so.lastReceipts, 99),
    split_ours_http_response_p50_ms: percentile(so.triggerDone, 50),
    split_ours_server_cpu_per_update_p50_ms: percentile(so.cpu, 50),
    split_raw_ws_last_friend_p50_ms: percentile(sr.lastReceipts, 50),
    split_raw_ws_last_friend_p99_ms: percentile(sr.lastReceipts, 99),
    split_raw_ws_server_cpu_per_broadcast_p50_ms: percentile(sr.cpu, 50),
  };
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
    description: `Presence fan-out to ${FRIENDS} online friends over the real Gateway (HTTP updateRichPresence -> the last friend's PRESENCE_UPDATE), vs raw ws broadcast of the same frame to ${FRIENDS} sockets; in one process, and with the server in its own process (split_).`,
    figures: {
      ...f,
      ratio_last_friend_p50_ours_over_raw: f.ours_last_friend_p50_ms / f.raw_ws_last_friend_p50_ms,
      ratio_last_friend_p99_ours_over_raw: f.ours_last_friend_p99_ms / f.raw_ws_last_friend_p99_ms,
      ...sf,
      split_ratio_last_friend_p50_ours_over_raw: sf.split_ours_last_friend_p50_ms / sf.split_raw_ws_last_friend_p50_ms,
      split_ratio_last_friend_p99_ours_over_raw: sf.split_ours_last_friend_p99_ms / sf.split_raw_ws_last_friend_p99_ms,
      split_ratio_cpu_ours_over_raw: sf.split_ours_server_cpu_per_update_p50_ms / sf.split_raw_ws_server_cpu_per_broadcast_p50_ms,
    },
    notes: [
      'Unprefixed: sender, server and the 500 receiving sockets share this process; ours is measured, then the peer.',
      'split_: the platform node and the peer\'s server in a child process (CPU = that process\'s per update), sender and friends here; the two take turns update by update; the peer\'s latency starts at its broadcast in the child.',
      'Ours = HTTP request + activity validation + friends query + per-application presence view + per-session sequencing; raw ws = socket writes only (the floor).',
      'HTTP rate limits are off here (rateLimits: false): one player updates presence far faster than the 20 per 10 s a player gets.',
      'Setup writes the 500 friendships straight into the store; the friend-request routes are covered by tests, not timed here.',
    ],
  };
}
