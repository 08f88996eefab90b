/**
 * A lobby message across three nodes: three server processes of the real CLI on one PostgreSQL
 * schema and Redis (tools/src/cluster startCluster), 45 members whose Gateway sessions are spread
 * over the three nodes (member k on node k % 3), the message sent over HTTP to node 0. Beside it,
 * in the same cluster and run, a second lobby of 45 whose sessions all sit on node 0 (the same
 * job on one node). Rounds alternate between the two lobbies. Needs PostgreSQL, Redis and
 * HAProxy as the cluster tests do (SOCIAL_LAYER_TEST_PG, SOCIAL_LAYER_TEST_REDIS).
 *
 * It also reads Redis's own CPU time and command count (INFO) over the measured rounds, less an
 * idle window of the same length just before them (heartbeats, presence and owner refreshes),
 * per dispatch: the figure docs/capacity.md sizes Redis from. The Redis must be this run's alone.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import type WebSocket from 'ws';
import { startCluster } from '../cluster/index.ts';
import { apiJson, guestToken, openGatewaySession } from './fanout.ts';
import { nowMs, percentile } from './stats.ts';
import type { BenchResult } from './types.ts';
import { interleavedRounds, type Receipt } from './lobby/interleave.ts';
import { closeHttp, postJson } from './lobby/http.ts';

// Rate limits stay on (the CLI has no switch): 2 x 45 accounts stay under 120 tokens per minute
// per address, and node 0 holds 15 + 45 Gateway sockets, under its 64 per address.
const MEMBERS = 45;
const WARMUP = 10;
const ROUNDS = Number(process.env.BENCH_CLUSTER_ROUNDS ?? 200);
const PG_URL = process.env.SOCIAL_LAYER_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.SOCIAL_LAYER_TEST_REDIS ?? 'redis://127.0.0.1:6379';

/** Redis's CPU time (user + system, ms) and commands processed so far. */
async function redisUsage(redis: Redis): Promise<{ cpuMs: number; commands: number }> {
  const field = (text: string, name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  const cpu = await redis.info('cpu');
  const stats = await redis.info('stats');
  return { cpuMs: (field(cpu, 'used_cpu_user') + field(cpu, 'used_cpu_sys')) * 1000, commands: field(stats, 'total_commands_processed') };
}

export default async function clusterFanout(): Promise<BenchResult> {
  const schema = `bench_cf_${randomBytes(4).toString('hex')}`;
  const say = (line: string) => process.stderr.write(`cluster-fanout: ${line}\n`);
  say('starting three nodes');
  const cluster = await startCluster({ nodes: 3, pgUrl: PG_URL, pgSchema: schema, redisUrl: REDIS_URL, redisPrefix: `${schema}:`, startTimeoutMs: 180_000 });
  const sockets: WebSocket[] = [];
  const redis = new Redis(REDIS_URL);
  try {
    const appId = cluster.application!.applicationId;
    const node = (i: number) => cluster.nodes[i]!.url;
    const lobbyOf = async (name: string, nodeOf: (k: number) => number, receipt: Receipt) => {
      const tokens: string[] = [];
      let lobbyId = '';
      for (let k = 0; k < MEMBERS; k++) {
        const token = await guestToken(`${node(0)}/api/v10`, appId);
        tokens.push(token);
        lobbyId = (await apiJson('PUT', `${node(0)}/api/v10/lobbies`, token, { secret: `${schema}-${name}` })).id;
        const ws = `${node(nodeOf(k)).replace('http', 'ws')}/gateway?v=10&encoding=json`;
        sockets.push(await openGatewaySession(ws, token, (type, d) => type === 'LOBBY_MESSAGE_CREATE' && receipt.handler?.(d.content, nowMs())));
      }
      return {
        name,
        receivers: MEMBERS,
        receipt,
        // Senders rotate so no one member meets the 50-per-10 s send budget.
        trigger: (i: number, content: string) => postJson('POST', `${node(0)}/api/v10/lobbies/${lobbyId}/messages`, tokens[i % MEMBERS]!, { content }),
      };
    };
    say('nodes up; opening sessions');
    const spread = await lobbyOf('three_nodes', (k) => k % 3, {});
    const single = await lobbyOf('one_node', () => 0, {});
    say('sessions open; measuring');
    const key = (side: string, i: number) => `${side} ${i}`;
    await interleavedRounds([spread, single], WARMUP, 0, (s, i) => `warm ${key(s, i)}`);
    // The idle cost over a window as long as the measured one is taken out below.
    const idle0 = await redisUsage(redis);
    const idleStart = nowMs();
    await new Promise((r) => setTimeout(r, 3000));
    const idle1 = await redisUsage(redis);
    const idleMs = nowMs() - idleStart;
    const busyStart = nowMs();
    const samples = await interleavedRounds([spread, single], 0, ROUNDS, key);
    const busy1 = await redisUsage(redis);
    const busyMs = nowMs() - busyStart;
    const idleScale = busyMs / idleMs;
    const dispatches = ROUNDS * 2 * MEMBERS;
    const redisCpuMs = busy1.cpuMs - idle1.cpuMs - (idle1.cpuMs - idle0.cpuMs) * idleScale;
    const redisCommands = busy1.commands - idle1.commands - (idle1.commands - idle0.commands) * idleScale;
    const a = samples.three_nodes!;
    const b = samples.one_node!;
    const f = {
      members: MEMBERS,
      rounds: ROUNDS,
      three_nodes_p50_ms: percentile(a.receipts, 50),
      three_nodes_p99_ms: percentile(a.receipts, 99),
      three_nodes_last_member_p99_ms: percentile(a.lastReceipts, 99),
      one_node_p50_ms: percentile(b.receipts, 50),
      one_node_p99_ms: percentile(b.receipts, 99),
      one_node_last_member_p99_ms: percentile(b.lastReceipts, 99),
      redis_cpu_us_per_dispatch: (redisCpuMs * 1000) / dispatches,
      redis_commands_per_dispatch: redisCommands / dispatches,
      redis_idle_cpu_ms_per_s: ((idle1.cpuMs - idle0.cpuMs) / idleMs) * 1000,
    };
    return {
      description: `Lobby message to ${MEMBERS} members with Gateway sessions on three server processes (PostgreSQL + Redis), vs a lobby of ${MEMBERS} on one of those nodes, same cluster, rounds interleaved.`,
      figures: { ...f, ratio_p50_three_over_one: f.three_nodes_p50_ms / f.one_node_p50_ms, ratio_p99_three_over_one: f.three_nodes_p99_ms / f.one_node_p99_ms },
      notes: [
        'Nodes, clients, PostgreSQL and Redis share this machine; the sender posts to node 0 directly (HAProxy is up but not in the timed path).',
        'HTTP rate limits stay on (the CLI has no switch), hence 45 members (64 Gateway sockets per address per node) and rotating senders.',
        `Redis per dispatch: its CPU and commands over the measured rounds (${dispatches} dispatches, both lobbies), less an idle window of the same length; commands run inside scripts count one each.`,
      ],
    };
  } finally {
    closeHttp();
    redis.disconnect();
    for (const s of sockets) s.terminate();
    await cluster.stop();
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`drop schema if exists ${schema} cascade`).finally(() => admin.end());
  }
}
