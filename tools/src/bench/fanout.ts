/**
 * What the fan-out benchmarks share: HTTP calls to the API, Gateway sessions, the timed rounds
 * (trigger one fan-out, wait until every receiver has it, record each receipt), and the peer,
 * a bare `ws` server broadcasting a frame of the same size to the same number of sockets.
 */
import { randomBytes } from 'node:crypto';
import WebSocket, { WebSocketServer } from 'ws';
import { nowMs } from './stats.ts';

export async function apiJson(method: string, url: string, token: string | null, body?: unknown): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/** A new provisional player of `appId` (a random device ID) on the API at `api`: their access token. */
export async function guestToken(api: string, appId: string): Promise<string> {
  const t = await apiJson('POST', `${api}/partner-sdk/token`, null, { client_id: appId, external_auth_type: 'DEVICE_ID', external_auth_token: randomBytes(16).toString('hex') });
  return t.access_token as string;
}

/**
 * Opens a Gateway session (with `intents` when given) and resolves at READY; `onDispatch` sees every
 * later dispatch, `onBytes` the size of every message from the first (HELLO, READY included).
 */
export function openGatewaySession(wsUrl: string, token: string, onDispatch: (t: string, d: any, text: string) => void, intents?: number, onBytes?: (bytes: number) => void): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl);
    socket.on('error', reject);
    socket.on('message', (data: Buffer) => {
      onBytes?.(data.length);
      const text = data.toString();
      const f = JSON.parse(text);
      if (f.op === 10) socket.send(JSON.stringify({ op: 2, d: { token, ...(intents === undefined ? {} : { intents }), properties: { os: 'linux', browser: 'bench', device: 'bench' } } }));
      else if (f.t === 'READY') resolve(socket);
      else if (f.op === 0) onDispatch(f.t, f.d, text);
    });
  });
}

export interface FanoutSample {
  /** Start of each round to each receipt, ms. */
  receipts: number[];
  /** Start of each round to its last receipt, ms. */
  lastReceipts: number[];
}

/**
 * Runs `warmup + rounds` fan-outs one after another. `receipt` is where receivers report the key
 * they got; a round ends when `receivers` reports of its key arrived. Warm-up rounds are not kept.
 */
export async function measureRounds(options: {
  receivers: number;
  warmup: number;
  rounds: number;
  key: (round: number) => string;
  trigger: (round: number, key: string) => Promise<void> | void;
  receipt: { handler?: (key: string, at: number) => void };
}): Promise<FanoutSample> {
  const receipts: number[] = [];
  const lastReceipts: number[] = [];
  for (let i = 0; i < options.warmup + options.rounds; i++) {
    const key = options.key(i);
    const times: number[] = [];
    const done = new Promise<void>((resolve) => {
      options.receipt.handler = (k, at) => {
        if (k !== key) return;
        times.push(at);
        if (times.length === options.receivers) resolve();
      };
    });
    const t0 = nowMs();
    await options.trigger(i, key);
    await done;
    if (i >= options.warmup) {
      for (const t of times) receipts.push(t - t0);
      lastReceipts.push(Math.max(...times) - t0);
    }
  }
  return { receipts, lastReceipts };
}

/**
 * The peer: a bare `ws` server and `sockets` clients on loopback; each round broadcasts
 * `frame(round, key)` to all of them, and each client parses it and reports `extract(parsed)`.
 */
export async function measureRawBroadcast(options: {
  sockets: number;
  warmup: number;
  rounds: number;
  key: (round: number) => string;
  frame: (round: number, key: string) => string;
  extract: (parsed: any) => string;
}): Promise<FanoutSample> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const port = (wss.address() as { port: number }).port;
  const receipt: { handler?: (key: string, at: number) => void } = {};
  const clients: WebSocket[] = [];
  const accepted = new Promise<void>((resolve) => {
    let n = 0;
    wss.on('connection', () => {
      if (++n === options.sockets) resolve();
    });
  });
  for (let i = 0; i < options.sockets; i++) {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`);
    ws.on('message', (data) => receipt.handler?.(options.extract(JSON.parse(data.toString())), nowMs()));
    clients.push(ws);
  }
  await accepted;
  try {
    return await measureRounds({
      receivers: options.sockets,
      warmup: options.warmup,
      rounds: options.rounds,
      key: options.key,
      receipt,
      trigger: (round, key) => {
        const frame = options.frame(round, key);
        for (const ws of wss.clients) ws.send(frame);
      },
    });
  } finally {
    for (const c of clients) c.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
  }
}

/** Pads a frame object's `d.pad` so its JSON is `bytes` long: both sides then move the same bytes. */
export function paddedFrame(base: { d: { pad: string } }, bytes: number): string {
  base.d.pad = '';
  base.d.pad = 'x'.repeat(Math.max(0, bytes - JSON.stringify(base).length));
  return JSON.stringify(base);
}
