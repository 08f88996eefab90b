/**
 * Joining at scale: clients that open a Gateway session (Identify -> READY) and then
 * create-or-join a lobby by secret (lobbies of 100: each join writes the member, answers with the
 * whole lobby, and sends LOBBY_MEMBER_ADD to every co-member already there), against clients that
 * only identify, on one server in the same run. The peer (lobby/rawJoinPeer.ts) runs the same
 * two arms: a bare http + ws server, in the platform's process, that sends the same messages of
 * the same sizes and does nothing else, so its join-over-identify ratio is what the bytes alone
 * allow. The four arms take turns batch by batch (one batch = one lobby's worth of clients), so
 * all see the same load on a shared machine. A join batch ends when every LOBBY_MEMBER_ADD it
 * caused has reached its member.
 * Target (issue 18): identify + join at no less than 75% of the rate of identify alone.
 *
 * Two layouts, both printed (as `lobby-fanout`):
 * - split (the target's figure): the platform node in a process of its own
 *   (lobby/platformProcess.ts), the 2,000 clients in this one, as in a deployment, where players
 *   never share the server's event loop. CPU per client is printed for each process.
 * - in_process: clients and server share one process, so a join's ~50 LOBBY_MEMBER_ADD receipts
 *   (the clients' WebSocket parsing) are charged to the join arm as well.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type WebSocket from 'ws';
import { startServer } from '@social-layer/server';
import { guestToken, openGatewaySession } from './fanout.ts';
import { nowMs, percentile } from './stats.ts';
import type { BenchResult } from './types.ts';
import { closeHttp, postJson } from './lobby/http.ts';
import { startProfile } from './lobby/profile.ts';
import { PlatformChild } from './lobby/platformChild.ts';
import { lobbyBenchServerOptions } from './lobby/serverOptions.ts';
import { startRawJoinPeer } from './lobby/rawJoinPeer.ts';

const CLIENTS = Number(process.env.BENCH_JOIN_CLIENTS ?? 1000);
const LOBBY_SIZE = Number(process.env.BENCH_JOIN_LOBBY_SIZE ?? 100);
/** Clients of one batch in flight at once (a crowd arriving, not one after another). */
const CONCURRENCY = Number(process.env.BENCH_JOIN_CONCURRENCY ?? 25);

type ArmName = 'identify' | 'identify_join' | 'raw_identify' | 'raw_join';
const isJoin = (name: ArmName) => name === 'identify_join' || name === 'raw_join';
const isRaw = (name: ArmName) => name.startsWith('raw_');
interface Arm {
  name: ArmName;
  ms: number;
  /** The server's CPU over the arm's batches (the whole process's when it is this one). */
  serverCpuMs: number;
  /** This process's CPU over the arm's batches (split layout only: the clients' own). */
  clientCpuMs: number;
  clients: number;
  latencies: number[];
  /** What the server sent the arm's clients: Gateway messages (HELLO and READY on) and HTTP answers' bodies. */
  bytes: number;
}

/** Where the platform node runs: its URL and app, its CPU clock, and a CPU profile of it under BENCH_PROFILE. */
interface Platform {
  url: string;
  appId: string;
  /** The raw peer's origin (lobby/rawJoinPeer.ts), in the platform's process. */
  rawUrl: string;
  cpuMs(): Promise<number>;
  profile(name: string): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

const ownCpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

async function inProcessPlatform(): Promise<Platform> {
  const dir = mkdtempSync(join(tmpdir(), 'sl-bench-'));
  const server = await startServer(lobbyBenchServerOptions(dir));
  const app = await server.createApplication({ name: 'bench' });
  const raw = await startRawJoinPeer();
  return {
    url: server.url,
    appId: app.id,
    rawUrl: raw.url,
    cpuMs: async () => ownCpuMs(),
    profile: startProfile,
    close: async () => {
      await raw.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function splitPlatform(): Promise<Platform> {
  const child = await PlatformChild.start();
  return {
    url: child.url,
    appId: child.appId,
    rawUrl: child.rawJoinUrl,
    cpuMs: () => child.cpuMs(),
    profile: async (name) => {
      const stopHere = await startProfile(`${name}-clients`);
      const stopServer = await child.profile(`${name}-server`);
      return async () => {
        await stopServer();
        await stopHere();
      };
    },
    close: () => child.stop(),
  };
}

/** Both arms against one platform, batches interleaved. */
async function measure(platform: Platform, split: boolean, profileName: string): Promise<Record<ArmName, Arm> & { memberAdds: number }> {
  const sockets: WebSocket[] = [];
  try {
    const endpoints = (origin: string) => ({ api: `${origin}/api/v10`, wsUrl: `${origin.replace('http', 'ws')}/gateway?v=10&encoding=json` });
    const ours = endpoints(platform.url);
    const peer = endpoints(platform.rawUrl);
    // Accounts and tokens are made up front for both arms: the timed part is identify (+ join).
    const tokens: string[] = [];
    for (let i = 0; i < 2 * CLIENTS; i++) tokens.push(await guestToken(ours.api, platform.appId));
    let memberAdds = 0;
    // A join batch ends when its members have heard of every join, not when the last PUT answers:
    // the server may hold roster frames for a moment (gateway/writeCoalescer.ts), and their
    // writes belong to the batch that caused them, not to the next batch of the other arm.
    let delivered: { target: number; resolve: () => void } | null = null;
    const onDispatch = (t: string) => {
      if (t !== 'LOBBY_MEMBER_ADD') return;
      memberAdds++;
      if (delivered && memberAdds >= delivered.target) delivered.resolve();
    };
    let memberAddsExpected = 0;
    const allDelivered = (): Promise<void> =>
      memberAdds >= memberAddsExpected
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            // Bounded: a lost frame shows as member_add_dispatches_seen below the expected count.
            const timer = setTimeout(resolve, 5000);
            const done = () => {
              clearTimeout(timer);
              delivered = null;
              resolve();
            };
            delivered = { target: memberAddsExpected, resolve: done };
          });
    const client = async (arm: Arm, token: string, secret: string): Promise<number> => {
      const t0 = nowMs();
      const to = isRaw(arm.name) ? peer : ours;
      sockets.push(await openGatewaySession(to.wsUrl, token, onDispatch, undefined, (n) => (arm.bytes += n)));
      if (isJoin(arm.name)) {
        // Awaited before the sum: `bytes += await ...` would add to the count read before the wait.
        const answer = await postJson('PUT', `${to.api}/lobbies`, token, { secret });
        // Its size as sent: the server writes compact JSON, which JSON.stringify gives back.
        arm.bytes += Buffer.byteLength(JSON.stringify(answer));
      }
      return nowMs() - t0;
    };
    const arm = (name: ArmName): Arm => ({ name, ms: 0, serverCpuMs: 0, clientCpuMs: 0, clients: 0, latencies: [], bytes: 0 });
    const arms = { identify: arm('identify'), identify_join: arm('identify_join'), raw_identify: arm('raw_identify'), raw_join: arm('raw_join') };
    const batch = async (arm: Arm, batchTokens: string[], secret: string) => {
      const s0 = await platform.cpuMs();
      const c0 = ownCpuMs();
      const t0 = nowMs();
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(CONCURRENCY, batchTokens.length) }, async () => {
          while (next < batchTokens.length) arm.latencies.push(await client(arm, batchTokens[next++]!, secret));
        }),
      );
      if (isJoin(arm.name)) {
        // A fresh lobby per batch: its k-th joiner is announced to the k - 1 before it.
        memberAddsExpected += (batchTokens.length * (batchTokens.length - 1)) / 2;
        await allDelivered();
      }
      arm.ms += nowMs() - t0;
      if (split) arm.clientCpuMs += ownCpuMs() - c0;
      arm.serverCpuMs += (await platform.cpuMs()) - s0;
      arm.clients += batchTokens.length;
    };
    const run = randomBytes(4).toString('hex');
    const batches = Math.ceil(CLIENTS / LOBBY_SIZE);
    const stopProfile = await platform.profile(profileName);
    try {
      const names: ArmName[] = ['identify', 'identify_join', 'raw_identify', 'raw_join'];
      for (let b = 0; b < batches; b++) {
        const slice = (base: number) => tokens.slice(base + b * LOBBY_SIZE, base + Math.min(CLIENTS, (b + 1) * LOBBY_SIZE));
        // Rotate which arm goes first, so none always runs on the warmer (or busier) process.
        for (let k = 0; k < names.length; k++) {
          const name = names[(b + k) % names.length]!;
          const own = slice(isJoin(name) ? CLIENTS : 0);
          // The peer keeps no accounts: its tokens are any distinct strings.
          const batchTokens = isRaw(name) ? own.map((t) => `raw-${name}-${t}`) : own;
          await batch(arms[name], batchTokens, `join-${run}-${b}`);
        }
      }
    } finally {
      await stopProfile();
    }
    return { ...arms, memberAdds };
  } finally {
    closeHttp();
    for (const s of sockets) s.terminate();
    await platform.close();
  }
}

function figures(prefix: string, r: Awaited<ReturnType<typeof measure>>, split: boolean): Record<string, number | string> {
  const rate = (a: Arm) => (a.clients / a.ms) * 1000;
  const cpu = (a: Arm) => a.serverCpuMs / a.clients;
  const ratio = rate(r.identify_join) / rate(r.identify);
  const expectedAdds = Math.ceil(CLIENTS / LOBBY_SIZE) * ((LOBBY_SIZE * (LOBBY_SIZE - 1)) / 2);
  const out: Record<string, number | string> = {
    identify_only_per_s: rate(r.identify),
    identify_join_per_s: rate(r.identify_join),
    ratio_join_over_identify: ratio,
    identify_only_latency_p50_ms: percentile(r.identify.latencies, 50),
    identify_only_latency_p99_ms: percentile(r.identify.latencies, 99),
    identify_join_latency_p50_ms: percentile(r.identify_join.latencies, 50),
    identify_join_latency_p99_ms: percentile(r.identify_join.latencies, 99),
    identify_only_server_cpu_ms_per_client: r.identify.serverCpuMs / r.identify.clients,
    identify_join_server_cpu_ms_per_client: r.identify_join.serverCpuMs / r.identify_join.clients,
    ratio_server_cpu_identify_over_join: r.identify.serverCpuMs / r.identify.clients / (r.identify_join.serverCpuMs / r.identify_join.clients),
    identify_only_kb_sent_per_client: r.identify.bytes / r.identify.clients / 1024,
    identify_join_kb_sent_per_client: r.identify_join.bytes / r.identify_join.clients / 1024,
    ...(split
      ? {
          identify_only_client_cpu_ms_per_client: r.identify.clientCpuMs / r.identify.clients,
          identify_join_client_cpu_ms_per_client: r.identify_join.clientCpuMs / r.identify_join.clients,
        }
      : {}),
    raw_identify_only_per_s: rate(r.raw_identify),
    raw_identify_join_per_s: rate(r.raw_join),
    raw_ratio_join_over_identify: rate(r.raw_join) / rate(r.raw_identify),
    raw_identify_only_server_cpu_ms_per_client: cpu(r.raw_identify),
    raw_identify_join_server_cpu_ms_per_client: cpu(r.raw_join),
    raw_identify_only_kb_sent_per_client: r.raw_identify.bytes / r.raw_identify.clients / 1024,
    raw_identify_join_kb_sent_per_client: r.raw_join.bytes / r.raw_join.clients / 1024,
    // What a join adds to an Identify on each side, in server CPU: ours over the peer's.
    join_cost_ours_over_raw: (cpu(r.identify_join) - cpu(r.identify)) / (cpu(r.raw_join) - cpu(r.raw_identify)),
    member_add_dispatches_seen: r.memberAdds,
    member_add_dispatches_expected: 2 * expectedAdds,
  };
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [`${prefix}${k}`, v]));
}

export default async function lobbyJoin(): Promise<BenchResult> {
  const split = figures('split_', await measure(await splitPlatform(), true, 'lobby-join'), true);
  const inProcess = figures('in_process_', await measure(await inProcessPlatform(), false, 'lobby-join-in-process'), false);
  const verdict = (ratio: unknown) => (typeof ratio === 'number' && ratio >= 0.75 ? 'met' : 'not met');
  return {
    description: `${CLIENTS} clients identify then create-or-join lobbies of ${LOBBY_SIZE} (PUT /lobbies), vs ${CLIENTS} clients that only identify, same server, and both again against a bare peer sending the same bytes; batches interleaved, ${CONCURRENCY} in flight; the server in its own process (split) and everything in one process (in_process).`,
    figures: {
      clients_per_arm: CLIENTS,
      lobby_size: LOBBY_SIZE,
      concurrency: CONCURRENCY,
      ...split,
      target_at_least_0_75_split: verdict(split.split_ratio_join_over_identify),
      ...inProcess,
      target_at_least_0_75_in_process: verdict(inProcess.in_process_ratio_join_over_identify),
    },
    notes: [
      'Rates are clients completed per second of each arm\'s own batches.',
      'split: the platform node in a child process (server CPU = that process\'s), the clients here (client CPU = this process\'s); the machine\'s cores are shared by the two.',
      'in_process: clients, server and their sockets share one process; server CPU there is the whole process\'s.',
      'Tokens (provisional accounts) are made before timing for both arms; every socket stays open to the end, so later joins fan out to earlier members.',
      'CPU ms per client is less sensitive to other tenants than the rates; the server-CPU ratio (identify over identify + join) is the rate one saturated node would reach.',
      'kb_sent_per_client: what the server sent each client (Gateway messages from HELLO on, and the PUT\'s answer), counted as received; a join adds the whole lobby twice (the answer and the joiner\'s LOBBY_CREATE) and one LOBBY_MEMBER_ADD to each member already there.',
      'raw_*: the peer (lobby/rawJoinPeer.ts), the same messages at the same sizes from a bare http + ws server with no accounts, storage or validation, in the same process as the platform; join_cost_ours_over_raw: the server CPU a join adds to an Identify, ours over the peer\'s.',
    ],
  };
}
