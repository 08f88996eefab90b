/**
 * Lobby load generator: many guests in many lobbies chatting at a steady rate over the real
 * Gateway, for a bounded time, against a server on this machine. It reports delivery latency
 * (send to each member's dispatch), throughput and every error. Targets must be loopback: load
 * never leaves the machine.
 */
import { randomBytes } from 'node:crypto';
import type WebSocket from 'ws';
import { apiJson, openGatewaySession } from '../bench/fanout.ts';
import { nowMs, percentile } from '../bench/stats.ts';

export interface LobbyLoadOptions {
  /** http://127.0.0.1:PORT (or localhost, [::1]). */
  url: string;
  applicationId: string;
  clients: number;
  lobbySize: number;
  /** Messages per second per client. */
  rate: number;
  seconds: number;
}

export interface LobbyLoadReport {
  clients: number;
  lobbies: number;
  sent: number;
  delivered: number;
  expectedDeliveries: number;
  errors: number;
  errorSamples: string[];
  latencyP50Ms: number;
  latencyP99Ms: number;
  deliveriesPerSecond: number;
}

const MAX_CLIENTS = 2000;
const MAX_SECONDS = 600;

export function assertLoopback(url: string): void {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  if (!loopback) throw new Error(`load targets must be on this machine (loopback), not ${host}`);
}

export async function runLobbyLoad(options: LobbyLoadOptions): Promise<LobbyLoadReport> {
  assertLoopback(options.url);
  const clients = Math.min(MAX_CLIENTS, Math.max(1, Math.floor(options.clients)));
  const seconds = Math.min(MAX_SECONDS, Math.max(1, options.seconds));
  const lobbySize = Math.max(1, Math.min(clients, Math.floor(options.lobbySize)));
  const api = `${options.url.replace(/\/+$/, '')}/api/v10`;
  const wsUrl = `${options.url.replace(/^http/, 'ws').replace(/\/+$/, '')}/gateway?v=10&encoding=json`;
  const run = randomBytes(4).toString('hex');
  const errors: string[] = [];
  let errorCount = 0;
  const fail = (e: unknown) => {
    errorCount++;
    if (errors.length < 10) errors.push(e instanceof Error ? e.message : String(e));
  };

  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  let delivered = 0;
  const sockets: WebSocket[] = [];
  const members: { token: string; lobbyId: string }[] = [];
  try {
    for (let i = 0; i < clients; i++) {
      const t = await apiJson('POST', `${api}/partner-sdk/token`, null, { client_id: options.applicationId, external_auth_type: 'DEVICE_ID', external_auth_token: `load-${run}-${i}-${randomBytes(8).toString('hex')}` });
      const lobby = await apiJson('PUT', `${api}/lobbies`, t.access_token, { secret: `load-${run}-${Math.floor(i / lobbySize)}` });
      members.push({ token: t.access_token, lobbyId: lobby.id });
      sockets.push(
        await openGatewaySession(wsUrl, t.access_token, (type, d) => {
          if (type !== 'LOBBY_MESSAGE_CREATE') return;
          const at = sentAt.get(d.content);
          if (at === undefined) return;
          latencies.push(nowMs() - at);
          delivered++;
        }),
      );
    }
    const lobbies = new Set(members.map((m) => m.lobbyId)).size;
    let sent = 0;
    let expectedDeliveries = 0;
    const start = nowMs();
    const interval = 1000 / options.rate;
    // Each client sends on its own schedule, spread over the interval so load is even.
    await Promise.all(
      members.map(async (m, i) => {
        const size = members.filter((o) => o.lobbyId === m.lobbyId).length;
        let next = start + (interval * i) / members.length;
        while (next < start + seconds * 1000) {
          const wait = next - nowMs();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          const content = `${run}:${i}:${sent++}`;
          sentAt.set(content, nowMs());
          expectedDeliveries += size;
          await apiJson('POST', `${api}/lobbies/${m.lobbyId}/messages`, m.token, { content }).catch(fail);
          next += interval;
        }
      }),
    );
    // Let the last dispatches arrive.
    const drainUntil = nowMs() + 2000;
    while (delivered < expectedDeliveries && nowMs() < drainUntil) await new Promise((r) => setTimeout(r, 20));
    const elapsed = (nowMs() - start) / 1000;
    return {
      clients,
      lobbies,
      sent,
      delivered,
      expectedDeliveries,
      errors: errorCount,
      errorSamples: errors,
      latencyP50Ms: percentile(latencies, 50),
      latencyP99Ms: percentile(latencies, 99),
      deliveriesPerSecond: delivered / elapsed,
    };
  } finally {
    for (const s of sockets) s.terminate();
  }
}
