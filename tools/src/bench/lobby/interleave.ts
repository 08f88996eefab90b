/**
 * Interleaved rounds: ours and the peer take turns round by round (the order alternating), so
 * both see the same machine load. Benchmarks here run on cores shared with other work; measuring
 * one side after the other would compare two different machines.
 */
import WebSocket from 'ws';
import { nowMs } from '../stats.ts';
import { startRawFanoutPeer } from './rawFanoutPeer.ts';

export interface Receipt {
  handler?: (key: string, at: number) => void;
}

export interface Side {
  name: string;
  receivers: number;
  receipt: Receipt;
  /**
   * Starts one fan-out of `key`; resolves when the sender's part is done (e.g. the HTTP response).
   * It may resolve with `startedAt` (stats.ts `nowMs`, the shared monotonic clock): where the
   * fan-out began in another process, the origin of this round's latencies (the raw peer's
   * broadcast, triggered over IPC, starts there, not at the IPC send).
   */
  trigger: (round: number, key: string) => Promise<void | { startedAt: number }> | void;
  /**
   * The CPU time (ms) of the process that does this side's work, when that is not this one
   * (`lobby-fanout`'s server process); read before and after each round.
   */
  cpu?: () => Promise<number>;
}

export interface SideSample {
  /** Round start to each receipt, ms. */
  receipts: number[];
  /** Round start to the round's last receipt, ms. */
  lastReceipts: number[];
  /** Round start to the trigger's own completion (for ours: the HTTP response), ms. */
  triggerDone: number[];
  /**
   * This process's CPU time (user + system) over each round, ms. Latency on a shared machine
   * mostly measures the other tenants; CPU per round is the work each side itself costs.
   */
  cpu: number[];
}

async function oneRound(side: Side, round: number, key: string, out: SideSample | null): Promise<void> {
  const times: number[] = [];
  const done = new Promise<void>((resolve) => {
    side.receipt.handler = (k, at) => {
      if (k !== key) return;
      times.push(at);
      if (times.length === side.receivers) resolve();
    };
  });
  const remote0 = await side.cpu?.();
  const c0 = process.cpuUsage();
  let t0 = nowMs();
  const started = await side.trigger(round, key);
  const triggered = nowMs();
  // Only a fan-out started elsewhere says so (ours resolves with the HTTP answer, the message).
  if (started && typeof started.startedAt === 'number') t0 = started.startedAt;
  await done;
  const c = process.cpuUsage(c0);
  const remote1 = await side.cpu?.();
  side.receipt.handler = undefined;
  if (!out) return;
  out.cpu.push(remote0 !== undefined && remote1 !== undefined ? remote1 - remote0 : (c.user + c.system) / 1000);
  for (const t of times) out.receipts.push(t - t0);
  out.lastReceipts.push(Math.max(...times) - t0);
  out.triggerDone.push(triggered - t0);
}

/** `warmup + rounds` rounds; in each, every side runs once, the first side rotating. */
export async function interleavedRounds(sides: Side[], warmup: number, rounds: number, key: (side: string, round: number) => string): Promise<Record<string, SideSample>> {
  const out: Record<string, SideSample> = {};
  for (const s of sides) out[s.name] = { receipts: [], lastReceipts: [], triggerDone: [], cpu: [] };
  for (let i = 0; i < warmup + rounds; i++) {
    for (let j = 0; j < sides.length; j++) {
      const side = sides[(i + j) % sides.length]!;
      await oneRound(side, i, key(side.name, i), i >= warmup ? out[side.name]! : null);
    }
  }
  return out;
}

/**
 * The peer (rawFanoutPeer.ts) in this process, holding `sockets` loopback clients: `broadcast(frame)`
 * writes the frame to every socket, `port` also takes its `POST /messages`; each client parses
 * what it gets and reports `extract(parsed)` to `receipt`.
 */
export async function rawBroadcaster(sockets: number, extract: (parsed: any) => string): Promise<{ receipt: Receipt; port: number; broadcast: (frame: string) => void; close: () => Promise<void> }> {
  const peer = await startRawFanoutPeer();
  const clients = await rawClients(peer.port, sockets, extract);
  return {
    receipt: clients.receipt,
    port: peer.port,
    broadcast: peer.broadcast,
    close: async () => {
      clients.close();
      await peer.close();
    },
  };
}

/** The peer's receiving end: `sockets` clients of a bare `ws` server on `port`, each reporting `extract(parsed)` to `receipt`. */
export async function rawClients(port: number, sockets: number, extract: (parsed: any) => string): Promise<{ receipt: Receipt; close: () => void }> {
  const receipt: Receipt = {};
  const clients: WebSocket[] = [];
  for (let i = 0; i < sockets; i++) {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`);
    ws.on('message', (data) => receipt.handler?.(extract(JSON.parse(data.toString())), nowMs()));
    clients.push(ws);
  }
  await Promise.all(clients.map((ws) => new Promise<void>((resolve, reject) => (ws.once('open', () => resolve()), ws.once('error', reject)))));
  return {
    receipt,
    close: () => {
      for (const c of clients) c.terminate();
    },
  };
}
