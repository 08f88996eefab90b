/**
 * Guild member-update fan-out over the real platform: the guild owner edits their member
 * (`PATCH /guilds/{id}/members/@me`, a bio) and GUILD_MEMBER_UPDATE reaches every member's Gateway
 * session. The guild has 1,000 members with GUILD_MEMBERS in their intents (they must receive it)
 * and 100 more sessions without it (the intent filter must drop it). Member events need no
 * permission (every member may see them). A second series measures the permission filter: the
 * owner edits a channel that only three of five roles may view (role overwrites over an
 * @everyone deny), and CHANNEL_UPDATE must reach exactly the members who can view it; the
 * publisher computes every member's channel permissions. The peer is the floor for the
 * same job: a bare `ws` server broadcasting a frame of the same size to 1,000 sockets.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type WebSocket from 'ws';
import { startServer } from '@social-layer/server';
import { apiJson, measureRawBroadcast, measureRounds, openGatewaySession, paddedFrame, type FanoutSample } from './fanout.ts';
import { nowMs, percentile } from './stats.ts';
import type { BenchResult } from './types.ts';

const MEMBERS = Number(process.env.BENCH_GUILD_MEMBERS ?? 1000);
const FILTERED = 100;
const WARMUP = 10;
const UPDATES = Number(process.env.BENCH_GUILD_UPDATES ?? 100);
const GUILD_MEMBERS_INTENT = 1 << 1;
const GUILDS_INTENT = 1 << 0;

interface Ours extends FanoutSample {
  frameBytes: number;
  leaked: number;
  channel: FanoutSample & { receivers: number; leaked: number };
}

async function measureOurs(): Promise<Ours> {
  const dir = mkdtempSync(join(tmpdir(), 'sl-bench-'));
  const server = await startServer({ port: 0, dataDir: dir, serveSamples: false, logLevel: 'error', heartbeatIntervalMs: 600_000, rateLimits: false });
  const sockets: WebSocket[] = [];
  try {
    const app = await server.createApplication({ name: 'bench' });
    const api = `${server.url}/api/v10`;
    const wsUrl = `${server.url.replace('http', 'ws')}/gateway?v=10&encoding=json`;
    // Setup writes users, tokens and memberships straight into the store (the routes that make
    // them are measured by the tests, not here).
    const users: { id: string; token: string }[] = [];
    for (let i = 0; i < MEMBERS + FILTERED; i++) {
      const { user } = await server.store.users.findOrCreateProvisional(app.id, 'DEVICE_ID', `bench-${i}`, `Member ${i}`);
      users.push({ id: user.id, token: await server.store.tokens.issue(user.id, app.id, ['identify', 'guilds'], 3600) });
    }
    const owner = users[0]!;
    const guild = await apiJson('POST', `${api}/guilds`, owner.token, { name: 'Bench Guild' });
    // A few roles, so each member's permissions are a real computation.
    const roles: string[] = [];
    for (let r = 0; r < 5; r++) roles.push((await apiJson('POST', `${api}/guilds/${guild.id}/roles`, owner.token, { name: `role ${r}`, permissions: String(1n << BigInt(r + 10)) })).id);
    await server.store.guilds.transaction(async (tx) => {
      for (const [i, u] of users.entries()) if (i > 0) await server.store.guildMembers.add(tx, guild.id, u.id, [roles[i % roles.length]!]);
    });

    // The channel of the permission series: @everyone denied VIEW_CHANNEL, roles 0-2 allowed.
    const VIEW = String(1n << 10n);
    const channel = await apiJson('POST', `${api}/guilds/${guild.id}/channels`, owner.token, {
      name: 'staff',
      permission_overwrites: [{ id: guild.id, type: 0, deny: VIEW }, ...roles.slice(0, 3).map((id) => ({ id, type: 0, allow: VIEW }))],
    });
    const canView = (i: number) => i === 0 || i % roles.length < 3;
    const channelReceivers = users.filter((_, i) => canView(i)).length;

    let frameBytes = 0;
    let leaked = 0;
    let channelLeaked = 0;
    const receipt: { handler?: (key: string, at: number) => void } = {};
    const channelReceipt: { handler?: (key: string, at: number) => void } = {};
    const onDispatch = (index: number, filtered: boolean) => (t: string, d: any, text: string) => {
      if (t === 'CHANNEL_UPDATE' && d.id === channel.id) {
        if (!canView(index)) channelLeaked++;
        else channelReceipt.handler?.(d.topic, nowMs());
        return;
      }
      if (t !== 'GUILD_MEMBER_UPDATE' || d.user?.id !== owner.id) return;
      if (filtered) {
        leaked++;
        return;
      }
      frameBytes = text.length;
      receipt.handler?.(d.bio, nowMs());
    };
    for (let i = 0; i < users.length; i += 50) {
      await Promise.all(
        users.slice(i, i + 50).map((u, j) => {
          const filtered = i + j >= MEMBERS;
          // The owner's own session gets its update whatever its intents: keep it among the receivers.
          const intents = filtered ? GUILDS_INTENT : GUILDS_INTENT | GUILD_MEMBERS_INTENT;
          return openGatewaySession(wsUrl, u.token, onDispatch(i + j, filtered), intents).then((s) => sockets.push(s));
        }),
      );
    }
    const sample = await measureRounds({
      receivers: MEMBERS,
      warmup: WARMUP,
      rounds: UPDATES,
      receipt,
      key: (i) => `bio ${i}`,
      trigger: async (_i, bio) => {
        await apiJson('PATCH', `${api}/guilds/${guild.id}/members/@me`, owner.token, { bio });
      },
    });
    const channelSample = await measureRounds({
      receivers: channelReceivers,
      warmup: WARMUP,
      rounds: UPDATES,
      receipt: channelReceipt,
      key: (i) => `topic ${i}`,
      trigger: async (_i, topic) => {
        await apiJson('PATCH', `${api}/channels/${channel.id}`, owner.token, { topic });
      },
    });
    return { ...sample, frameBytes, leaked, channel: { ...channelSample, receivers: channelReceivers, leaked: channelLeaked } };
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
    rounds: UPDATES,
    key: (i) => `bio ${i}`,
    frame: (i, bio) => paddedFrame({ op: 0, t: 'GUILD_MEMBER_UPDATE', s: i + 1, d: { bio, pad: '' } } as { d: { pad: string } }, frameBytes),
    extract: (f) => f.d.bio,
  });
}

export default async function guildFanout(): Promise<BenchResult> {
  const ours = await measureOurs();
  const raw = await measureRawWs(ours.frameBytes);
  const f = {
    members: MEMBERS,
    filtered_sessions: FILTERED,
    updates: UPDATES,
    frame_bytes: ours.frameBytes,
    leaked_to_filtered_sessions: ours.leaked,
    channel_update_receivers: ours.channel.receivers,
    channel_update_leaked_to_non_viewers: ours.channel.leaked,
    channel_update_p50_ms: percentile(ours.channel.receipts, 50),
    channel_update_p99_ms: percentile(ours.channel.receipts, 99),
    channel_update_last_member_p50_ms: percentile(ours.channel.lastReceipts, 50),
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
    description: `GUILD_MEMBER_UPDATE fan-out to ${MEMBERS} members' Gateway sessions (HTTP Modify Current Member -> every member's dispatch) with intent filtering (${FILTERED} sessions without GUILD_MEMBERS must get nothing), and a CHANNEL_UPDATE of a channel three of five roles may view (permission filtering: only those members get it), vs raw ws broadcast of the same frame to ${MEMBERS} sockets.`,
    figures: {
      ...f,
      ratio_p50_ours_over_raw: f.ours_p50_ms / f.raw_ws_p50_ms,
      ratio_p99_ours_over_raw: f.ours_p99_ms / f.raw_ws_p99_ms,
      ratio_last_member_p50_ours_over_raw: f.ours_last_member_p50_ms / f.raw_ws_last_member_p50_ms,
    },
    notes: [
      'Senders, server and receivers share this machine\'s cores; both sides are measured the same way in one process.',
      'Ours = HTTP request + validation + SQLite update + reading the member and the guild\'s member IDs + one publish per member + per-session intent filter and sequencing; raw ws = socket writes only (the floor).',
      'leaked_to_filtered_sessions and channel_update_leaked_to_non_viewers must be 0.',
      'channel_update_* = HTTP Modify Channel + a channel-permission computation for each of the guild\'s members + the publishes to those who may view it.',
    ],
  };
}
