/**
 * Frames for one socket within one event-loop turn leave in one write (src/gateway/writeCoalescer.ts):
 * the first frame of a turn at once, the rest corked until setImmediate; then a burst of real
 * Gateway dispatches (players joining a lobby together) arrives whole and in order.
 */
import { createServer, connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beforeWrite, flushNow, type WriteTurns } from '../src/gateway/writeCoalescer.ts';
import { cleanupTempDirs, RawGateway, startTestServer, type TestServer } from './harness.ts';

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

/** What GatewayConnection.sendFrame does: coalesce, then write. */
function write(turns: WriteTurns, socket: Socket, text: string): void {
  beforeWrite(turns, socket);
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

describe('write coalescing', () => {
  it('writes the first frame of a turn at once and corks the socket for the rest of the turn', async () => {
    const { server, received, close } = await socketPair();
    try {
      const turns = { lastTurn: -1, corkedTurn: -1 };
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
    } finally {
      close();
    }
  });

  it('flushNow sends what the turn corked at once (a closing connection), and the end of the turn leaves it be', async () => {
    const { server, received, close } = await socketPair();
    try {
      const turns = { lastTurn: -1, corkedTurn: -1 };
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
    } finally {
      close();
    }
  });

  it('a socket destroyed while corked is left alone at the end of the turn', async () => {
    const { server, close } = await socketPair();
    try {
      const turns = { lastTurn: -1, corkedTurn: -1 };
      write(turns, server, 'a');
      write(turns, server, 'b');
      expect(server.writableCorked).toBe(1);
      server.destroy();
      await nextTurn();
      expect(server.destroyed).toBe(true);
    } finally {
      close();
    }
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
});
