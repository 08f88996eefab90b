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
import type WebSocket from 'ws';
import { startServer } from '@social-layer/server';
import { apiJson, measureRawBroadcast, measureRounds, openGatewaySession, paddedFrame, type FanoutSample } from './fanout.ts';
import { nowMs, percentile } from './stats.ts';
import type { BenchResult } from './types.ts';

const FRIENDS = Number(process.env.BENCH_FRIENDS ?? 500);
const WARMUP = 20;
const UPDATES = Number(process.env.BENCH_UPDATES ?? 200);

async function measureOurs(): Promise<FanoutSample & { frameBytes: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'sl-bench-'));
  const server = await startServer({ port: 0, dataDir: dir, serveSamples: false, logLevel: 'error', heartbeatIntervalMs: 600_000, rateLimits: false });
  const sockets: WebSocket[] = [];
  try {
    const app = await server.createApplication({ name: 'bench' });
    const api = `${server.url}/api/v10`;
    const wsUrl = `${server.url.replace('http', 'ws')}/gateway?v=10&encoding=json`;
    const guest = async () => {
      const t = await apiJson('POST', `${api}/partner-sdk/token`, null, { client_id: app.id, external_auth_type: 'DEVICE_ID', external_auth_token: randomBytes(16).toString('hex') });
      const me = await apiJson('GET', `${api}/users/@me`, t.access_token);
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
        await apiJson('PUT', `${api}/users/@me/activities`, host.token, {
          type: 0,
          state,
          details: 'Capture the flag',
          party: { id: 'bench-party', size: [1 + (i % 4), 4] },
          assets: { large_image: 'map-forest' },
        });
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
    sockets: FRIENDS,
    warmup: WARMUP,
    rounds: UPDATES,
    key: (i) => `Round ${i}`,
    frame: (i, state) =>
      paddedFrame({ op: 0, t: 'PRESENCE_UPDATE', s: i + 1, d: { user: { id: '1' }, status: 'online', activities: [{ state }], pad: '' } } as { d: { pad: string } }, frameBytes),
    extract: (f) => f.d.activities[0].state,
  });
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
