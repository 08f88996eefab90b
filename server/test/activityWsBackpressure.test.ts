// Backpressure in the activity proxy's WebSocket relay (issue 17, wsRelay.ts), through the real
// proxy host with real sockets: a game server floods 64 MiB at an activity page that reads nothing
// (ws pause(): its TCP window closes). The proxy stops reading from the game once the page's queue
// passes the high-water mark, so the game's own send queue backs up and far less than the flood
// leaves it; when the page reads again everything arrives, in order, nothing lost. A page that
// never reads again is dropped after the stall time and the game's socket is closed with 1013.
// The other way too: a page flooding a game that reads nothing is held back the same way.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityService } from '../src/activities/ActivityService.ts';
import { RELAY_LIMITS } from '../src/activities/wsRelay.ts';
import { UrlPolicy } from '../src/config/urlPolicy.ts';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';

const CHUNK = 256 * 1024;
const TOTAL = 64 * 1024 * 1024;
let t: TestServer;
let game: http.Server;
let wss: WebSocketServer;
/** The game's side of each connection: bytes it queued, and how it closed. */
const sides: { ws: WebSocket; queued: number; closed?: number }[] = [];
/** The game's side of each `/sink` connection: reads nothing until resumed; what it received. */
const sinks: { ws: WebSocket; chunks: number[]; bytes: number }[] = [];

beforeAll(async () => {
  game = http.createServer();
  wss = new WebSocketServer({ server: game, perMessageDeflate: false });
  wss.on('connection', (ws, req) => {
    if (req.url?.startsWith('/sink')) {
      const sink: (typeof sinks)[number] = { ws, chunks: [], bytes: 0 };
      sinks.push(sink);
      ws.on('message', (data: Buffer) => {
        sink.chunks.push(data.readUInt32BE(0));
        sink.bytes += data.length;
      });
      ws.pause();
      return;
    }
    const side: (typeof sides)[number] = { ws, queued: 0 };
    sides.push(side);
    ws.on('close', (code) => (side.closed = code));
    // Sends as fast as its own socket takes it (never more than 8 MiB queued in itself), chunk i
    // starting with its index so the reader can check the order.
    let i = 0;
    const pump = () => {
      while (ws.readyState === WebSocket.OPEN && side.queued < TOTAL && ws.bufferedAmount < 8 * 1024 * 1024) {
        const buf = Buffer.alloc(CHUNK, i & 0xff);
        buf.writeUInt32BE(i++, 0);
        ws.send(buf);
        side.queued += CHUNK;
      }
      if (ws.readyState === WebSocket.OPEN && side.queued < TOTAL) setTimeout(pump, 5);
    };
    pump();
  });
  await new Promise<void>((r) => game.listen(0, '127.0.0.1', r));
  t = await startTestServer({ dev: true, rateLimits: false });
  await new ActivityService(t.server.store, new UrlPolicy(true)).updateSettings(t.app.id, {
    enabled: true,
    url_mappings: [{ prefix: '/', target: `http://127.0.0.1:${(game.address() as AddressInfo).port}` }],
  });
  RELAY_LIMITS.highWater = 1024 * 1024;
  RELAY_LIMITS.lowWater = 256 * 1024;
});
afterAll(async () => {
  await t?.close();
  wss?.close();
  game?.close();
  cleanupTempDirs();
});

/** A page's socket through the proxy host, paused (reading nothing) from the start. */
async function slowReader(): Promise<{ ws: WebSocket; chunks: number[]; bytes: () => number; closed: Promise<number> }> {
  const ws = new WebSocket(`ws://127.0.0.1:${t.server.port}/.proxy/flood`, { headers: { host: `${t.app.id}.activities.localhost:${t.server.port}` }, perMessageDeflate: false, maxPayload: 16 * 1024 * 1024 });
  const chunks: number[] = [];
  let bytes = 0;
  ws.on('message', (data: Buffer) => {
    chunks.push(data.readUInt32BE(0));
    bytes += data.length;
  });
  const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
  ws.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.pause();
  return { ws, chunks, bytes: () => bytes, closed };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('activity proxy WebSocket backpressure', () => {
  it('a slow reader holds the game back instead of filling the proxy; reading again gets everything in order', async () => {
    const page = await slowReader();
    await sleep(3_000);
    const side = sides.at(-1)!;
    // What left the game: everything it queued minus what is still queued in it. Kernel buffers on
    // the two loopback hops hold some megabytes, the proxy at most its high-water mark more; without
    // backpressure the proxy would have taken the whole 64 MiB.
    const sent = side.queued - side.ws.bufferedAmount;
    expect(sent).toBeLessThan(40 * 1024 * 1024);
    expect(side.queued).toBeLessThan(TOTAL);
    page.ws.resume();
    const end = Date.now() + 120_000;
    while (page.bytes() < TOTAL && Date.now() < end) await sleep(100);
    expect(page.bytes()).toBe(TOTAL);
    expect(page.chunks).toEqual(Array.from({ length: TOTAL / CHUNK }, (_, i) => i));
    page.ws.close(1000);
    expect(await page.closed).toBe(1000);
  }, 180_000);

  it('the other way: a game that reads nothing holds back the page that floods it', async () => {
    RELAY_LIMITS.stallMs = 30_000;
    const ws = new WebSocket(`ws://127.0.0.1:${t.server.port}/sink`, { headers: { host: `${t.app.id}.activities.localhost:${t.server.port}` }, perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    let queued = 0;
    let i = 0;
    const pump = () => {
      while (ws.readyState === WebSocket.OPEN && queued < TOTAL && ws.bufferedAmount < 8 * 1024 * 1024) {
        const buf = Buffer.alloc(CHUNK, i & 0xff);
        buf.writeUInt32BE(i++, 0);
        ws.send(buf);
        queued += CHUNK;
      }
      if (ws.readyState === WebSocket.OPEN && queued < TOTAL) setTimeout(pump, 5);
    };
    pump();
    await sleep(3_000);
    expect(queued - ws.bufferedAmount).toBeLessThan(40 * 1024 * 1024);
    expect(queued).toBeLessThan(TOTAL);
    const sink = sinks.at(-1)!;
    sink.ws.resume();
    const end = Date.now() + 120_000;
    while (sink.bytes < TOTAL && Date.now() < end) await sleep(100);
    expect(sink.bytes).toBe(TOTAL);
    expect(sink.chunks).toEqual(Array.from({ length: TOTAL / CHUNK }, (_, k) => k));
    ws.close(1000);
  }, 180_000);

  it('a reader that never drains is dropped after the stall time; the game gets 1013', async () => {
    RELAY_LIMITS.stallMs = 1_500;
    const page = await slowReader();
    const side = await (async () => {
      for (let i = 0; i < 200 && sides.length < 2; i++) await sleep(50);
      return sides.at(-1)!;
    })();
    const end = Date.now() + 60_000;
    while (side.closed === undefined && Date.now() < end) await sleep(100);
    expect(side.closed).toBe(1013);
    // The page's socket was cut (no close frame could get past what it did not read).
    page.ws.resume();
    expect(await page.closed).toBe(1006);
    expect(page.bytes()).toBeLessThan(TOTAL);
  }, 120_000);
});
