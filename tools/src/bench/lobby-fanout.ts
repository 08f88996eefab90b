/**
 * Lobby message fan-out over the real platform: one member sends a lobby message over HTTP and
 * all 100 members (the sender too) receive LOBBY_MESSAGE_CREATE on their Gateway sockets. Latency
 * is send-start to each receipt. The peer is the floor for the same job: a bare `ws` server
 * broadcasting a frame of the same size to 100 loopback sockets, the two taking turns round by
 * round (lobby/interleave.ts). Ours includes the HTTP request, validation, the SQLite write and
 * the per-session framing. A second peer, `raw_http`, takes the message as ours does, in an HTTP
 * request to a bare node:http route that broadcasts it to the same sockets and answers: the least
 * any server of this API (a lobby message is `POST /lobbies/{id}/messages`) can do, timed from
 * the sender's request. The target is against `raw_ws`; `raw_http` shows what of the gap is the
 * request itself.
 *
 * Two layouts, both printed:
 * - split (the target's figure): the platform node and the raw peer's server in a process of
 *   their own (lobby/platformProcess.ts), the sender and receivers in this one, as in a
 *   deployment. The raw side's latency starts at its broadcast in the server process (the shared
 *   monotonic clock), not at the IPC that triggers it; CPU is the server process's.
 * - in-process: everything in this one process, as the earlier sessions measured it; there the
 *   sender's HTTP client and every receiver share the server's event loop, so latency is the
 *   process's CPU and the CPU ratio is the whole-process one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type WebSocket from 'ws';
import { startServer } from '@social-layer/server';
import { apiJson, guestToken, openGatewaySession, paddedFrame } from './fanout.ts';
import { nowMs, percentile } from './stats.ts';
import type { BenchResult } from './types.ts';
import { interleavedRounds, rawBroadcaster, rawClients, type Receipt, type Side, type SideSample } from './lobby/interleave.ts';
import { closeHttp, postJson } from './lobby/http.ts';
import { profiled } from './lobby/profile.ts';
import { PlatformChild } from './lobby/platformChild.ts';
import { lobbyBenchServerOptions } from './lobby/serverOptions.ts';

const MEMBERS = Number(process.env.BENCH_LOBBY_MEMBERS ?? 100);
/**
 * Two measurements from one run of each layout:
 * - cold: COLD_MESSAGES rounds right after 30 warm-up rounds, what the sessions before the tenth
 *   measured. V8 is still compiling the server: with `--trace-opt`, 442 TurboFan compiles in the
 *   first 250 rounds, 12-34 in each 250 up to round 2,000, and still 5-9 per 250 rounds by round
 *   2,750. Each takes 0.5-7 ms on a background thread, and on this 2-core machine the server and
 *   the clients then share one core around it;
 * - steady (the target's figure): MESSAGES rounds after STEADY_AFTER rounds per side, the node a
 *   player meets once it has been up a few seconds of real traffic.
 */
const COLD_WARMUP = 30;
const COLD_MESSAGES = Number(process.env.BENCH_COLD_MESSAGES ?? 300);
const STEADY_AFTER = Number(process.env.BENCH_STEADY_AFTER ?? 5000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 1000);

/** A lobby of MEMBERS on the server at `url`, each member with a Gateway session reporting LOBBY_MESSAGE_CREATE to `ours`. */
async function lobbyWithSessions(url: string, appId: string, ours: Receipt, frame: { bytes: number }, sockets: WebSocket[]): Promise<{ lobbyId: string; sender: string }> {
  const api = `${url}/api/v10`;
  const tokens: string[] = [];
  for (let i = 0; i < MEMBERS; i++) tokens.push(await guestToken(api, appId));
  let lobbyId = '';
  for (const token of tokens) lobbyId = (await apiJson('PUT', `${api}/lobbies`, token, { secret: 'bench-lobby' })).id;
  const wsUrl = `${url.replace('http', 'ws')}/gateway?v=10&encoding=json`;
  for (const token of tokens) {
    sockets.push(
      await openGatewaySession(wsUrl, token, (t, d, text) => {
        if (t !== 'LOBBY_MESSAGE_CREATE') return;
        frame.bytes = text.length;
        ours.handler?.(d.content, nowMs());
      }),
    );
  }
  return { lobbyId, sender: tokens[0]! };
}

/** The raw peer's frame: the same bytes as our latest frame (known after ours' first warm-up round). */
const rawFrame = (i: number, content: string, bytes: number) => paddedFrame({ op: 0, t: 'LOBBY_MESSAGE_CREATE', s: i + 1, d: { content, pad: '' } } as { d: { pad: string } }, bytes);

/** The peer's HTTP route (lobby/rawFanoutPeer.ts): the message in a request, answered after a broadcast of `bytes`. */
const rawHttpUrl = (port: number, bytes: number) => `http://127.0.0.1:${port}/messages?bytes=${bytes}`;

type Phases = { cold: Record<string, SideSample>; steady: Record<string, SideSample> };

/**
 * Warm-up, the cold rounds, more warm-up, the steady rounds; the steady phase profiled under
 * BENCH_PROFILE (this process, and the server's when it is a child).
 */
async function run(name: string, sides: Side[], child?: PlatformChild): Promise<Phases> {
  const key = (phase: string) => (side: string, i: number) => `${phase} ${side} ${i} x=${(i * 37) % 800} y=${(i * 53) % 600}`;
  await interleavedRounds(sides, COLD_WARMUP, 0, key('warm'));
  const cold = await interleavedRounds(sides, 0, COLD_MESSAGES, key('cold'));
  await interleavedRounds(sides, Math.max(0, STEADY_AFTER - COLD_WARMUP - COLD_MESSAGES), 0, key('settle'));
  const stopServerProfile = await child?.profile(`${name}-server`);
  try {
    const steady = await profiled(name, () => interleavedRounds(sides, 0, MESSAGES, key('move')));
    return { cold, steady };
  } finally {
    await stopServerProfile?.();
  }
}

/** Everything in this process. */
async function inProcess(): Promise<{ samples: Phases; frameBytes: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'sl-bench-'));
  const server = await startServer(lobbyBenchServerOptions(dir));
  const sockets: WebSocket[] = [];
  let raw: Awaited<ReturnType<typeof rawBroadcaster>> | undefined;
  try {
    const app = await server.createApplication({ name: 'bench' });
    const ours: Receipt = {};
    const frame = { bytes: 0 };
    const { lobbyId, sender } = await lobbyWithSessions(server.url, app.id, ours, frame, sockets);
    const peer = (raw = await rawBroadcaster(MEMBERS, (f) => f.d.content));
    const samples = await run('lobby-fanout-in-process', [
      { name: 'ours', receivers: MEMBERS, receipt: ours, trigger: (_i, content) => postJson('POST', `${server.url}/api/v10/lobbies/${lobbyId}/messages`, sender, { content }) },
      { name: 'raw', receivers: MEMBERS, receipt: peer.receipt, trigger: (i, content) => peer.broadcast(rawFrame(i, content, frame.bytes)) },
      { name: 'raw_http', receivers: MEMBERS, receipt: peer.receipt, trigger: (_i, content) => postJson('POST', rawHttpUrl(peer.port, frame.bytes), null, { content }) },
    ]);
    return { samples, frameBytes: frame.bytes };
  } finally {
    closeHttp();
    for (const s of sockets) s.terminate();
    await raw?.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The platform and the raw peer's server in a child process; sender and receivers here. */
async function split(): Promise<{ samples: Phases; frameBytes: number }> {
  const child = await PlatformChild.start();
  const sockets: WebSocket[] = [];
  let raw: Awaited<ReturnType<typeof rawClients>> | undefined;
  try {
    const url = child.url;
    const ours: Receipt = {};
    const frame = { bytes: 0 };
    const { lobbyId, sender } = await lobbyWithSessions(url, child.appId, ours, frame, sockets);
    raw = await rawClients(child.rawPort, MEMBERS, (f) => f.d.content);
    const cpu = () => child.cpuMs();
    const samples = await run('lobby-fanout', [
      { name: 'ours', receivers: MEMBERS, receipt: ours, cpu, trigger: (_i, content) => postJson('POST', `${url}/api/v10/lobbies/${lobbyId}/messages`, sender, { content }) },
      {
        name: 'raw',
        receivers: MEMBERS,
        receipt: raw.receipt,
        cpu,
        trigger: (i, content) => child.raw(rawFrame(i, content, frame.bytes)),
      },
      // The same sockets as `raw`, the message sent to the peer as ours is sent: over HTTP.
      { name: 'raw_http', receivers: MEMBERS, receipt: raw.receipt, cpu, trigger: (_i, content) => postJson('POST', rawHttpUrl(child.rawPort, frame.bytes), null, { content }) },
    ], child);
    return { samples, frameBytes: frame.bytes };
  } finally {
    closeHttp();
    for (const s of sockets) s.terminate();
    raw?.close();
    await child.stop();
  }
}

function figures(prefix: string, o: SideSample, r: SideSample, h: SideSample): Record<string, number> {
  const f = {
    ours_p50_ms: percentile(o.receipts, 50),
    ours_p99_ms: percentile(o.receipts, 99),
    ours_last_member_p99_ms: percentile(o.lastReceipts, 99),
    ours_http_response_p50_ms: percentile(o.triggerDone, 50),
    ours_cpu_per_message_p50_ms: percentile(o.cpu, 50),
    raw_ws_p50_ms: percentile(r.receipts, 50),
    raw_ws_p99_ms: percentile(r.receipts, 99),
    raw_ws_last_member_p99_ms: percentile(r.lastReceipts, 99),
    raw_ws_cpu_per_broadcast_p50_ms: percentile(r.cpu, 50),
    raw_http_p50_ms: percentile(h.receipts, 50),
    raw_http_p99_ms: percentile(h.receipts, 99),
    raw_http_last_member_p99_ms: percentile(h.lastReceipts, 99),
    raw_http_cpu_per_message_p50_ms: percentile(h.cpu, 50),
  };
  const out: Record<string, number> = {
    ...f,
    ratio_p50_ours_over_raw: f.ours_p50_ms / f.raw_ws_p50_ms,
    ratio_p99_ours_over_raw: f.ours_p99_ms / f.raw_ws_p99_ms,
    ratio_last_member_p99_ours_over_raw: f.ours_last_member_p99_ms / f.raw_ws_last_member_p99_ms,
    ratio_cpu_ours_over_raw: f.ours_cpu_per_message_p50_ms / f.raw_ws_cpu_per_broadcast_p50_ms,
    // The request alone: how far the least server that takes the message over HTTP is from the floor.
    ratio_p50_raw_http_over_raw: f.raw_http_p50_ms / f.raw_ws_p50_ms,
    ratio_p99_raw_http_over_raw: f.raw_http_p99_ms / f.raw_ws_p99_ms,
    ratio_p50_ours_over_raw_http: f.ours_p50_ms / f.raw_http_p50_ms,
    ratio_p99_ours_over_raw_http: f.ours_p99_ms / f.raw_http_p99_ms,
    ratio_cpu_ours_over_raw_http: f.ours_cpu_per_message_p50_ms / f.raw_http_cpu_per_message_p50_ms,
  };
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [`${prefix}${k}`, v]));
}

export default async function lobbyFanout(): Promise<BenchResult> {
  const s = await split();
  const p = await inProcess();
  const of = (x: Record<string, SideSample>) => [x.ours!, x.raw!, x.raw_http!] as const;
  const split_ = figures('split_', ...of(s.samples.steady));
  const inProcess_ = figures('in_process_', ...of(p.samples.steady));
  const splitCold = figures('split_cold_', ...of(s.samples.cold));
  const inProcessCold = figures('in_process_cold_', ...of(p.samples.cold));
  const verdict = (ratio: number | undefined) => (ratio !== undefined && ratio <= 1.5 ? 'met' : 'not met');
  return {
    description: `Lobby message fan-out to ${MEMBERS} members over the real Gateway (HTTP send -> every member's dispatch), vs raw ws broadcast of the same frame to ${MEMBERS} sockets; rounds interleaved; the server in its own process (split) and everything in one process (in_process); steady after ${STEADY_AFTER} rounds, cold right after ${COLD_WARMUP}.`,
    figures: {
      members: MEMBERS,
      messages: MESSAGES,
      steady_after_rounds: STEADY_AFTER,
      cold_messages: COLD_MESSAGES,
      frame_bytes: s.frameBytes,
      ...split_,
      ...inProcess_,
      ...splitCold,
      ...inProcessCold,
      target_p99_within_1_5x_raw_split: verdict(split_.split_ratio_p99_ours_over_raw),
      target_p99_within_1_5x_raw_in_process: verdict(inProcess_.in_process_ratio_p99_ours_over_raw),
    },
    notes: [
      'split: the platform node and the raw ws server in one child process (cpu = that process\'s CPU per round), sender and receivers here; raw latency starts at its broadcast in the child.',
      'in_process: sender, server, receivers and the raw peer share one process; there latency follows the whole process\'s CPU.',
      `steady (split_*, in_process_*; the target): ${MESSAGES} rounds after ${STEADY_AFTER} per side; cold (*_cold_*): ${COLD_MESSAGES} rounds after ${COLD_WARMUP}, while V8 still compiles the server's per-message code on a background thread.`,
      'Ours = HTTP request + validation + SQLite insert + per-session sequencing; raw ws = socket writes only (the floor), timed from the broadcast; raw http = the same sockets and frame, the message sent to a bare node:http route as ours is (lobby/rawFanoutPeer.ts: parse, broadcast, answer; no token, storage or validation), timed from the sender\'s request as ours is.',
      `HTTP rate limits are off here: one sender posts far faster than a player would. Sender's HTTP client: ${process.env.BENCH_HTTP === 'fetch' ? 'fetch' : 'node:http keep-alive'}.`,
    ],
  };
}
