/**
 * Joining at scale: clients that open a Gateway session (Identify -> READY) and then
 * create-or-join a lobby by secret (lobbies of 100: each join writes the member, answers with the
 * whole lobby, and sends LOBBY_MEMBER_ADD to every co-member already there), against clients that
 * only identify, on one server in the same run. The two arms take turns batch by batch (one
 * batch = one lobby's worth of clients), so both see the same load on a shared machine.
 * Target (issue 18): identify + join at no less than 75% of the rate of identify alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type WebSocket from 'ws';
import { startServer } from '@social-layer/server';
import { apiJson, openGatewaySession } from './fanout.ts';
import { nowMs, percentile } from './stats.ts';
import type { BenchResult } from './types.ts';
import { closeHttp, postJson } from './lobby/http.ts';
import { profiled } from './lobby/profile.ts';

const CLIENTS = Number(process.env.BENCH_JOIN_CLIENTS ?? 1000);
const LOBBY_SIZE = Number(process.env.BENCH_JOIN_LOBBY_SIZE ?? 100);
/** Clients of one batch in flight at once (a crowd arriving, not one after another). */
const CONCURRENCY = Number(process.env.BENCH_JOIN_CONCURRENCY ?? 25);

interface Arm {
  name: 'identify' | 'identify_join';
  ms: number;
  cpuMs: number;
  clients: number;
  latencies: number[];
}

export default async function lobbyJoin(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'sl-bench-'));
  const server = await startServer({ port: 0, dataDir: dir, serveSamples: false, logLevel: 'error', heartbeatIntervalMs: 60_000, rateLimits: false });
  const sockets: WebSocket[] = [];
  try {
    const app = await server.createApplication({ name: 'bench' });
    const api = `${server.url}/api/v10`;
    const wsUrl = `${server.url.replace('http', 'ws')}/gateway?v=10&encoding=json`;
    // Accounts and tokens are made up front for both arms: the timed part is identify (+ join).
    const tokens: string[] = [];
    for (let i = 0; i < 2 * CLIENTS; i++) {
      const t = await apiJson('POST', `${api}/partner-sdk/token`, null, { client_id: app.id, external_auth_type: 'DEVICE_ID', external_auth_token: randomBytes(16).toString('hex') });
      tokens.push(t.access_token);
    }
    let memberAdds = 0;
    const onDispatch = (t: string) => {
      if (t === 'LOBBY_MEMBER_ADD') memberAdds++;
    };
    const client = async (arm: Arm['name'], token: string, secret: string): Promise<number> => {
      const t0 = nowMs();
      sockets.push(await openGatewaySession(wsUrl, token, onDispatch));
      if (arm === 'identify_join') await postJson('PUT', `${api}/lobbies`, token, { secret });
      return nowMs() - t0;
    };
    const arms: Record<Arm['name'], Arm> = {
      identify: { name: 'identify', ms: 0, cpuMs: 0, clients: 0, latencies: [] },
      identify_join: { name: 'identify_join', ms: 0, cpuMs: 0, clients: 0, latencies: [] },
    };
    const batch = async (arm: Arm, batchTokens: string[], secret: string) => {
      const c0 = process.cpuUsage();
      const t0 = nowMs();
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(CONCURRENCY, batchTokens.length) }, async () => {
          while (next < batchTokens.length) arm.latencies.push(await client(arm.name, batchTokens[next++]!, secret));
        }),
      );
      arm.ms += nowMs() - t0;
      const c = process.cpuUsage(c0);
      arm.cpuMs += (c.user + c.system) / 1000;
      arm.clients += batchTokens.length;
    };
    const run = randomBytes(4).toString('hex');
    const batches = Math.ceil(CLIENTS / LOBBY_SIZE);
    await profiled('lobby-join', async () => {
      for (let b = 0; b < batches; b++) {
        const slice = (base: number) => tokens.slice(base + b * LOBBY_SIZE, base + Math.min(CLIENTS, (b + 1) * LOBBY_SIZE));
        // Alternate which arm goes first, so neither always runs on the warmer (or busier) process.
        const order = b % 2 === 0 ? (['identify', 'identify_join'] as const) : (['identify_join', 'identify'] as const);
        for (const name of order) await batch(arms[name], slice(name === 'identify' ? 0 : CLIENTS), `join-${run}-${b}`);
      }
    });
    const idRate = (arms.identify.clients / arms.identify.ms) * 1000;
    const joinRate = (arms.identify_join.clients / arms.identify_join.ms) * 1000;
    const ratio = joinRate / idRate;
    const expectedAdds = batches * ((LOBBY_SIZE * (LOBBY_SIZE - 1)) / 2);
    return {
      description: `${CLIENTS} clients identify then create-or-join lobbies of ${LOBBY_SIZE} (PUT /lobbies), vs ${CLIENTS} clients that only identify, same server, batches interleaved, ${CONCURRENCY} in flight.`,
      figures: {
        clients_per_arm: CLIENTS,
        lobby_size: LOBBY_SIZE,
        concurrency: CONCURRENCY,
        identify_only_per_s: idRate,
        identify_join_per_s: joinRate,
        ratio_join_over_identify: ratio,
        target_at_least_0_75: ratio >= 0.75 ? 'met' : 'not met',
        identify_only_latency_p50_ms: percentile(arms.identify.latencies, 50),
        identify_only_latency_p99_ms: percentile(arms.identify.latencies, 99),
        identify_join_latency_p50_ms: percentile(arms.identify_join.latencies, 50),
        identify_join_latency_p99_ms: percentile(arms.identify_join.latencies, 99),
        identify_only_cpu_ms_per_client: arms.identify.cpuMs / arms.identify.clients,
        identify_join_cpu_ms_per_client: arms.identify_join.cpuMs / arms.identify_join.clients,
        member_add_dispatches_seen: memberAdds,
        member_add_dispatches_expected_at_least: Math.floor(expectedAdds * 0.99),
      },
      notes: [
        'Clients, server and their sockets share one process and this machine\'s cores; rates are clients completed per second of each arm\'s own batches.',
        'Tokens (provisional accounts) are made before timing for both arms; every socket stays open to the end, so later joins fan out to earlier members.',
        'CPU ms per client is this process\'s user+system time over the arm\'s batches: less sensitive to other tenants than the rates.',
      ],
    };
  } finally {
    closeHttp();
    for (const s of sockets) s.terminate();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
