/**
 * The Gateway's fan-out loop on its own: one dispatch to 100 sessions (`EventBus.publishMany`; each
 * session numbers it, keeps it for Resume, frames it, and its socket writes it), against its
 * floor, `ws.send` of one prebuilt string to 100 sockets, and `ws.send` of a fresh string per
 * socket (what a per-session sequence number forces on any server). All in one process over real
 * loopback sockets, the three taking turns round by round; a round is timed from the first write
 * call to the return of the last, and the next starts once every receiver has parsed its frame.
 *
 * `lobby-fanout` holds the end-to-end target; this one isolates the part of it that runs once per
 * recipient, finely enough to see a microsecond per socket (that bench's run-to-run spread is
 * about 100 µs per message).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket, { WebSocketServer } from 'ws';
import { LocalEventBus, startServer, userTopic } from '@social-layer/server';
import { apiJson, guestToken, openGatewaySession } from './fanout.ts';
import { nowMs, percentile } from './stats.ts';
import type { BenchResult } from './types.ts';

const SOCKETS = Number(process.env.BENCH_LOOP_SOCKETS ?? 100);
const WARMUP = Number(process.env.BENCH_LOOP_WARMUP ?? 1500);
const ROUNDS = Number(process.env.BENCH_LOOP_ROUNDS ?? 3000);
const EVENT = 'LOBBY_MESSAGE_CREATE';

type Side = 'ours' | 'raw_one_string' | 'raw_string_per_socket';

export default async function fanoutLoop(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'sl-bench-loop-'));
  const bus = new LocalEventBus();
  const server = await startServer({ port: 0, dataDir: dir, serveSamples: false, logLevel: 'error', heartbeatIntervalMs: 600_000, rateLimits: false, bus });
  const raw = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  const sockets: WebSocket[] = [];
  try {
    await new Promise<void>((r) => raw.once('listening', () => r()));
    let received = 0;
    let roundDone: (() => void) | null = null;
    const onFrame = () => {
      if (++received === SOCKETS) roundDone?.();
    };

    const app = await server.createApplication({ name: 'bench' });
    const api = `${server.url}/api/v10`;
    const wsUrl = `${server.url.replace('http', 'ws')}/gateway?v=10&encoding=json`;
    const topics: string[] = [];
    for (let i = 0; i < SOCKETS; i++) {
      const token = await guestToken(api, app.id);
      topics.push(userTopic(app.id, (await apiJson('GET', `${api}/users/@me`, token)).id));
      sockets.push(await openGatewaySession(wsUrl, token, (t) => t === EVENT && onFrame()));
    }
    const port = (raw.address() as { port: number }).port;
    for (let i = 0; i < SOCKETS; i++) {
      const c = new WebSocket(`ws://127.0.0.1:${port}`);
      c.on('message', (data) => JSON.parse(data.toString()).t === EVENT && onFrame());
      await new Promise((r) => c.once('open', r));
      sockets.push(c);
    }
    const peers = [...raw.clients];

    // A lobby message's payload (about 400 bytes, as in lobby-fanout).
    const json = JSON.stringify({ id: '1300000000000000000', lobby_id: '1300000000000000001', channel_id: '1300000000000000001', content: 'x'.repeat(200), author: { id: '1300000000000000002', username: 'player', global_name: 'Player', avatar: null }, metadata: {}, flags: 0 });
    let s = 0;
    const sides: Record<Side, () => void> = {
      ours: () => bus.publishMany(topics, { t: EVENT, json }),
      raw_one_string: () => {
        const frame = `{"op":0,"t":"${EVENT}","s":${++s},"d":${json}}`;
        for (const ws of peers) ws.send(frame);
      },
      raw_string_per_socket: () => {
        const n = ++s;
        for (let i = 0; i < peers.length; i++) peers[i]!.send(`{"op":0,"t":"${EVENT}","s":${n + i},"d":${json}}`);
      },
    };
    const names = Object.keys(sides) as Side[];
    const loops: Record<Side, number[]> = { ours: [], raw_one_string: [], raw_string_per_socket: [] };
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      for (const name of names) {
        received = 0;
        const done = new Promise<void>((r) => (roundDone = r));
        const t0 = nowMs();
        sides[name]();
        const took = nowMs() - t0;
        await done;
        if (i >= WARMUP) loops[name].push(took * 1000);
      }
    }

    const p = (name: Side, q: number) => percentile(loops[name], q);
    const figures: Record<string, number> = { sockets: SOCKETS, rounds: ROUNDS, payload_bytes: json.length };
    for (const name of names) {
      figures[`${name}_loop_p50_us`] = p(name, 50);
      figures[`${name}_loop_p90_us`] = p(name, 90);
    }
    figures.ratio_p50_ours_over_raw_one_string = p('ours', 50) / p('raw_one_string', 50);
    figures.ratio_p50_ours_over_raw_string_per_socket = p('ours', 50) / p('raw_string_per_socket', 50);
    figures.ours_extra_us_per_socket_over_raw_one_string = (p('ours', 50) - p('raw_one_string', 50)) / SOCKETS;
    return {
      description: `The Gateway's fan-out loop alone: one dispatch to ${SOCKETS} sessions (EventBus, Session numbering and Resume buffer, write coalescer, ws) against ws.send of one string, and of a string per socket, to ${SOCKETS} sockets; one process, real loopback sockets, rounds interleaved, each round waited out until every receiver parsed its frame.`,
      figures,
      notes: [
        'Timed: the synchronous loop, first write call to the last one returning (CPU in this process: the loop does not wait). lobby-fanout measures delivery end to end and holds the target.',
        `Warm-up: ${WARMUP} rounds per side, not counted.`,
      ],
    };
  } finally {
    for (const ws of sockets) ws.terminate();
    await new Promise<void>((r) => raw.close(() => r()));
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
