/**
 * Frames for one socket within one event-loop turn leave in one write (src/gateway/writeCoalescer.ts):
 * the first frame of a turn at once, the rest corked until setImmediate; roster frames in a burst
 * held up to HOLD_MS and released, in order, by the hold's end, by a frame that cannot wait or by
 * a close; then bursts of real Gateway dispatches (players joining a lobby together, and a
 * message right after) arrive whole and in order.
 */
import { createServer, connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOLD_MS, beforeWrite, flushNow, type WriteTurns } from '../src/gateway/writeCoalescer.ts';
import { Session } from '../src/gateway/Session.ts';
import { cleanupTempDirs, RawGateway, startTestServer, type TestServer } from './harness.ts';

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A socket's record as a new GatewayConnection starts it. */
const fresh = (): WriteTurns => ({ lastTurn: -1, corkedTurn: -1, lastWriteAt: 0, holding: false });

/** What GatewayConnection.sendFrame does: coalesce, then write; `mayWait` for a roster frame. */
function write(turns: WriteTurns, socket: Socket, text: string, mayWait = false): void {
  beforeWrite(turns, socket, mayWait);
  socket.write(text);
}

/** A connected loopback pair: the server's end (written to) and everything the client end has read. */
async function socketPair(): Promise<{ server: Socket; received: () => string; close: () => void }> {
  const listener = createServer();
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  const port = (listener.address() as { port: number }).port;
  const accepted = new Promise<Socket>((r) => listener.once('connection', r));
  const client = connect(port, '127.0.0.1');
  let data = '';
  client.on('data', (b) => (data += b.toString()));
  const server = await accepted;
  return {
    server,
    received: () => data,
    close: () => {
      client.destroy();
      server.destroy();
      listener.close();
    },
  };
}

/** Runs `fn` on a fresh socket pair and closes it after, pass or fail. */
async function onPair(fn: (pair: { server: Socket; received: () => string }) => Promise<void>): Promise<void> {
  const { server, received, close } = await socketPair();
  try {
    await fn({ server, received });
  } finally {
    close();
  }
}

describe('write coalescing', () => {
  it('writes the first frame of a turn at once and corks the socket for the rest of the turn', () =>
    onPair(async ({ server, received }) => {
      const turns = fresh();
      write(turns, server, 'a');
      // Gone to the kernel already: nothing waits in the stream.
      expect(server.writableCorked).toBe(0);
      expect(server.writableLength).toBe(0);
      write(turns, server, 'b');
      write(turns, server, 'c');
      // Corked once, not once per frame; both frames wait for the end of the turn.
      expect(server.writableCorked).toBe(1);
      expect(server.writableLength).toBe(2);
      await nextTurn();
      expect(server.writableCorked).toBe(0);
      expect(server.writableLength).toBe(0);
      // A new turn: its first frame goes at once again.
      write(turns, server, 'd');
      expect(server.writableCorked).toBe(0);
      await expect.poll(received).toBe('abcd');
    }));

  it('flushNow sends what the turn corked at once (a closing connection), and the end of the turn leaves it be', () =>
    onPair(async ({ server, received }) => {
      const turns = fresh();
      // Nothing corked yet: nothing to do.
      flushNow(turns, server);
      expect(server.writableCorked).toBe(0);
      write(turns, server, 'a');
      write(turns, server, 'b');
      expect(server.writableLength).toBe(1);
      flushNow(turns, server);
      expect(server.writableCorked).toBe(0);
      expect(server.writableLength).toBe(0);
      // A later frame in the same turn is corked again, and the turn's end flushes it.
      write(turns, server, 'c');
      expect(server.writableCorked).toBe(1);
      await nextTurn();
      expect(server.writableCorked).toBe(0);
      await expect.poll(received).toBe('abc');
    }));

  it('a socket destroyed while corked is left alone at the end of the turn', () =>
    onPair(async ({ server }) => {
      const turns = fresh();
      write(turns, server, 'a');
      write(turns, server, 'b');
      expect(server.writableCorked).toBe(1);
      server.destroy();
      await nextTurn();
      expect(server.destroyed).toBe(true);
    }));
});

/**
 * The hold's end delivers `expected`, leaves the socket uncorked and not holding, and after a
 * quiet spell longer than the hold a roster frame leaves at once again.
 */
async function releasedThenQuiet(turns: WriteTurns, server: Socket, received: () => string, expected: string): Promise<void> {
  await expect.poll(received, { timeout: 1000, interval: 2 }).toBe(expected);
  expect(turns.holding).toBe(false);
  expect(server.writableCorked).toBe(0);
  await sleep(HOLD_MS + 5);
  write(turns, server, 'q', true);
  expect(server.writableLength).toBe(0);
  await expect.poll(received).toBe(`${expected}q`);
}

describe('the roster hold', () => {
  it('writes a roster frame on a quiet socket at once, and holds one that follows a write by less than HOLD_MS', () =>
    onPair(async ({ server, received }) => {
      const turns = fresh();
      write(turns, server, 'r1', true);
      expect(server.writableLength).toBe(0);
      await nextTurn();
      // The socket was written to a moment ago: this one and the next wait together.
      write(turns, server, 'r2', true);
      await nextTurn();
      write(turns, server, 'r3', true);
      expect(turns.holding).toBe(true);
      expect(server.writableCorked).toBe(1);
      expect(server.writableLength).toBe(4);
      await nextTurn();
      // The end of a turn does not release a hold.
      expect(server.writableLength).toBe(4);
      expect(received()).toBe('r1');
      await releasedThenQuiet(turns, server, received, 'r1r2r3');
    }));

  it('a frame that cannot wait takes the held ones along at the end of its turn, in order, with one cork throughout', () =>
    onPair(async ({ server, received }) => {
      const turns = fresh();
      write(turns, server, 'a');
      await nextTurn();
      write(turns, server, 'r1', true);
      write(turns, server, 'r2', true);
      write(turns, server, 'm');
      // Still one cork: the hold's became the turn's.
      expect(server.writableCorked).toBe(1);
      write(turns, server, 'n');
      write(turns, server, 'r3', true);
      expect(server.writableCorked).toBe(1);
      await nextTurn();
      expect(server.writableCorked).toBe(0);
      expect(server.writableLength).toBe(0);
      // A new hold while the first hold's entry is still listed: the hold's end releases it once.
      write(turns, server, 'r4', true);
      expect(turns.holding).toBe(true);
      expect(server.writableCorked).toBe(1);
      await releasedThenQuiet(turns, server, received, 'ar1r2mnr3r4');
    }));

  it('flushNow releases a hold at once (a closing connection)', () =>
    onPair(async ({ server, received }) => {
      const turns = fresh();
      write(turns, server, 'a');
      await nextTurn();
      write(turns, server, 'r1', true);
      expect(turns.holding).toBe(true);
      flushNow(turns, server);
      expect(turns.holding).toBe(false);
      expect(server.writableCorked).toBe(0);
      expect(server.writableLength).toBe(0);
      await expect.poll(received).toBe('ar1');
    }));

  it('a socket destroyed while held is left alone when the hold ends', () =>
    onPair(async ({ server }) => {
      const turns = fresh();
      write(turns, server, 'a');
      await nextTurn();
      write(turns, server, 'r1', true);
      server.destroy();
      await sleep(HOLD_MS + 10);
      expect(server.destroyed).toBe(true);
      expect(turns.holding).toBe(false);
    }));
});

describe('which frames may wait', () => {
  it('lobby roster changes may; messages, lobby changes, READY and the rest may not', () => {
    const s = new Session('sid', 'u1', 'app', 'token', 100);
    const sent: [string, boolean][] = [];
    s.attach((frame, mayWait) => sent.push([JSON.parse(frame.toString()).t, mayWait]));
    for (const t of ['LOBBY_MEMBER_ADD', 'LOBBY_MEMBER_UPDATE', 'LOBBY_MEMBER_REMOVE', 'LOBBY_MESSAGE_CREATE', 'LOBBY_UPDATE', 'LOBBY_DELETE', 'PRESENCE_UPDATE', 'VOICE_SERVER_UPDATE']) s.send(t, '{}');
    expect(sent).toEqual([
      ['LOBBY_MEMBER_ADD', true],
      ['LOBBY_MEMBER_UPDATE', true],
      ['LOBBY_MEMBER_REMOVE', true],
      ['LOBBY_MESSAGE_CREATE', false],
      ['LOBBY_UPDATE', false],
      ['LOBBY_DELETE', false],
      ['PRESENCE_UPDATE', false],
      ['VOICE_SERVER_UPDATE', false],
    ]);
  });
});

describe('a burst of Gateway dispatches', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t.close();
    cleanupTempDirs();
  });

  it('12 players joining one lobby at once: each member gets every LOBBY_MEMBER_ADD after its own join, whole and in sequence', async () => {
    const players = await Promise.all(Array.from({ length: 12 }, (_, i) => t.guest(`P${i}`)));
    const gateways = await Promise.all(players.map(async (p) => {
      const g = await RawGateway.open(t.server);
      await g.identify(p.token);
      return g;
    }));
    const secret = `burst-${Date.now()}`;
    const joins = await Promise.all(players.map((p) => t.req('PUT', '/lobbies', { token: p.token, body: { secret } })));
    for (const j of joins) expect(j.status).toBe(200);
    const lobbyId = joins[0]!.body.id;
    expect(new Set(joins.map((j) => j.body.id))).toEqual(new Set([lobbyId]));
    // The last member of the lobby sees nobody join after it; the first sees the 11 others.
    const memberCount = (j: (typeof joins)[number]) => j.body.members.length;
    for (let i = 0; i < players.length; i++) {
      const g = gateways[i]!;
      const later = 12 - memberCount(joins[i]!);
      await expect.poll(() => g.dispatches('LOBBY_MEMBER_ADD').length).toBe(later);
      const adds = g.dispatches('LOBBY_MEMBER_ADD');
      expect(new Set(adds.map((d: any) => d.d.member.id)).size).toBe(later);
      // Every frame this socket got parsed on its own, numbered one after another from READY's 1.
      const seqs = g.frames.filter((f: any) => f.op === 0).map((f: any) => f.s);
      expect(seqs).toEqual(seqs.map((_: number, k: number) => k + 1));
    }
    for (const g of gateways) g.terminate();
  });

  it('a message right after a burst of joins reaches a member after every LOBBY_MEMBER_ADD, numbered in order', async () => {
    const [host, ...joiners] = await Promise.all(Array.from({ length: 6 }, (_, i) => t.guest(`M${i}`)));
    const g = await RawGateway.open(t.server);
    await g.identify(host!.token);
    const secret = `order-${Date.now()}`;
    expect((await t.req('PUT', '/lobbies', { token: host!.token, body: { secret } })).status).toBe(200);
    const joined = await Promise.all(joiners.map((p) => t.req('PUT', '/lobbies', { token: p.token, body: { secret } })));
    const lobbyId = joined[0]!.body.id;
    const sent = await t.req('POST', `/lobbies/${lobbyId}/messages`, { token: joiners[0]!.token, body: { content: 'hi all' } });
    expect(sent.status).toBe(200);
    const message = await g.next((f) => f.t === 'LOBBY_MESSAGE_CREATE');
    // Held roster frames leave before (or with) the message, never after it.
    const before = g.frames.slice(0, g.frames.indexOf(message));
    expect(new Set(before.filter((f: any) => f.t === 'LOBBY_MEMBER_ADD').map((f: any) => f.d.member.id))).toEqual(new Set(joiners.map((p) => p.userId)));
    const seqs = g.frames.filter((f: any) => f.op === 0).map((f: any) => f.s);
    expect(seqs).toEqual(seqs.map((_: number, k: number) => k + 1));
    g.terminate();
  });
});
