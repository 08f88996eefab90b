import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanupTempDirs, RawGateway, startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
let alice: { token: string; userId: string };
let bob: { token: string; userId: string };

beforeAll(async () => {
  t = await startTestServer({ heartbeatIntervalMs: 1000, presenceGraceMs: 0 });
  alice = await t.guest('Alice');
  bob = await t.guest('Bob');
});
afterAll(async () => {
  await t.close();
  cleanupTempDirs();
});

describe('Gateway handshake', () => {
  it('sends Hello, accepts Identify and answers with READY holding user, session and lobbies', async () => {
    const lobby = await t.req('PUT', '/lobbies', { token: alice.token, body: { secret: 'gw-ready', lobby_metadata: { mode: 'ctf' } } });
    const g = await RawGateway.open(t.server);
    expect(g.frames[0]).toEqual({ op: 10, d: { heartbeat_interval: 1000 }, s: null, t: null });
    const ready = await g.identify(alice.token);
    expect(ready.v).toBe(10);
    expect(ready.user).toMatchObject({ id: alice.userId, global_name: 'Alice', is_provisional: true });
    expect(ready.session_id).toMatch(/^[0-9a-f]{32}$/);
    expect(ready.resume_gateway_url).toBe(`${t.server.url.replace('http', 'ws')}/gateway`);
    expect(ready.application.id).toBe(t.app.id);
    expect(ready.lobbies.map((l: any) => l.id)).toEqual([lobby.body.id]);
    expect(ready.lobbies[0].metadata).toEqual({ mode: 'ctf' });
    expect(ready.lobbies[0].members.find((m: any) => m.id === alice.userId).connected).toBe(true);
    expect(g.dispatches('READY')[0].s).toBe(1);
    g.send({ op: 1, d: 1 });
    await g.next((f) => f.op === 11);
    g.ws.close(1000);
  });

  it('also accepts a token with the Bearer prefix, and a bot token', async () => {
    const g = await RawGateway.open(t.server);
    expect((await g.identify(`Bearer ${alice.token}`)).user.id).toBe(alice.userId);
    g.ws.close(1000);
    const b = await RawGateway.open(t.server);
    const ready = await b.identify(t.app.botToken);
    expect(ready.user.bot).toBe(true);
    b.ws.close(1000);
  });

  it('answers a server heartbeat request at once', async () => {
    const g = await RawGateway.open(t.server);
    g.send({ op: 1, d: null });
    const ack = await g.next((f) => f.op === 11);
    expect(ack).toEqual({ op: 11, d: null, s: null, t: null });
    g.terminate();
  });
});

describe('Gateway close codes', () => {
  const cases: [string, (g: RawGateway) => void, number][] = [
    ['payload before Identify -> 4003', (g) => g.send({ op: 3, d: { status: 'online', activities: [], since: null, afk: false } }), 4003],
    ['bad token -> 4004', (g) => g.send({ op: 2, d: { token: 'nope', properties: {} } }), 4004],
    ['invalid JSON -> 4002', (g) => g.send('{"op":'), 4002],
    ['non-object payload -> 4002', (g) => g.send('[1,2]'), 4002],
    ['payload over 4096 bytes -> 4002', (g) => g.send({ op: 1, d: null, pad: 'x'.repeat(5000) }), 4002],
    ['binary frame -> 4002', (g) => g.ws.send(Buffer.from([1, 2, 3])), 4002],
    ['unknown opcode -> 4001', (g) => g.send({ op: 99, d: null }), 4001],
    ['invalid intents -> 4013', (g) => g.send({ op: 2, d: { token: alice.token, properties: {}, intents: 1 << 30 } }), 4013],
  ];
  for (const [name, act, code] of cases) {
    it(name, async () => {
      const g = await RawGateway.open(t.server);
      act(g);
      expect(await g.closed()).toBe(code);
    });
  }

  it('a second Identify -> 4005', async () => {
    const g = await RawGateway.open(t.server);
    await g.identify(alice.token);
    g.send({ op: 2, d: { token: alice.token, properties: {} } });
    expect(await g.closed()).toBe(4005);
  });

  it('too many payloads -> 4008', async () => {
    const g = await RawGateway.open(t.server);
    for (let i = 0; i < 125; i++) g.send({ op: 1, d: null });
    expect(await g.closed()).toBe(4008);
  });

  it('a wrong API version -> 4012', async () => {
    const g = new RawGateway(`${t.server.url.replace('http', 'ws')}/gateway?v=3&encoding=json`);
    expect(await g.closed()).toBe(4012);
  });

  it('no heartbeat within the interval -> 4009 (session timed out)', async () => {
    const g = await RawGateway.open(t.server);
    await g.identify(alice.token);
    expect(await g.closed(4000)).toBe(4009);
  });
});

describe('Gateway resume', () => {
  it('replays every dispatch missed while the socket was gone, in order, exactly once, then RESUMED', async () => {
    const lobby = (await t.req('PUT', '/lobbies', { token: alice.token, body: { secret: 'gw-resume' } })).body;
    await t.req('PUT', '/lobbies', { token: bob.token, body: { secret: 'gw-resume' } });
    const g = await RawGateway.open(t.server);
    const ready = await g.identify(bob.token);
    await t.req('POST', `/lobbies/${lobby.id}/messages`, { token: alice.token, body: { content: 'before' } });
    const before = await g.next((f) => f.t === 'LOBBY_MESSAGE_CREATE');
    g.terminate();

    for (let i = 0; i < 10; i++) await t.req('POST', `/lobbies/${lobby.id}/messages`, { token: alice.token, body: { content: `missed ${i}` } });

    const r = await RawGateway.open(t.server);
    r.send({ op: 6, d: { token: bob.token, session_id: ready.session_id, seq: before.s } });
    await r.next((f) => f.t === 'RESUMED');
    const replayed = r.dispatches('LOBBY_MESSAGE_CREATE');
    expect(replayed.map((f) => f.d.content)).toEqual(Array.from({ length: 10 }, (_, i) => `missed ${i}`));
    const seqs = r.dispatches().map((f) => f.s);
    expect(seqs).toEqual(seqs.map((_, i) => before.s + 1 + i));

    await t.req('POST', `/lobbies/${lobby.id}/messages`, { token: alice.token, body: { content: 'after' } });
    await r.next((f) => f.t === 'LOBBY_MESSAGE_CREATE' && f.d.content === 'after');
    // Everything on the new socket, replay and live, continues the one sequence without gaps or repeats.
    const all = r.dispatches().map((f) => f.s);
    expect(all).toEqual(all.map((_, i) => before.s + 1 + i));
    expect(r.dispatches('LOBBY_MESSAGE_CREATE').map((f) => f.d.content)).toEqual([...Array.from({ length: 10 }, (_, i) => `missed ${i}`), 'after']);
    r.ws.close(1000);
  });

  it('answers Invalid Session for an unknown session or a token of someone else', async () => {
    const g = await RawGateway.open(t.server);
    g.send({ op: 6, d: { token: alice.token, session_id: 'deadbeef', seq: 1 } });
    expect((await g.next((f) => f.op === 9)).d).toBe(false);

    const a = await RawGateway.open(t.server);
    const ready = await a.identify(alice.token);
    a.terminate();
    const b = await RawGateway.open(t.server);
    b.send({ op: 6, d: { token: bob.token, session_id: ready.session_id, seq: 1 } });
    expect((await b.next((f) => f.op === 9)).d).toBe(false);
  });

  it('closes with 4007 when the resume seq is ahead of the session', async () => {
    const a = await RawGateway.open(t.server);
    const ready = await a.identify(alice.token);
    a.terminate();
    const b = await RawGateway.open(t.server);
    b.send({ op: 6, d: { token: alice.token, session_id: ready.session_id, seq: 999 } });
    expect(await b.closed()).toBe(4007);
  });

  it('cannot resume a session closed with 1000', async () => {
    const a = await RawGateway.open(t.server);
    const ready = await a.identify(alice.token);
    a.ws.close(1000);
    await a.closed();
    const b = await RawGateway.open(t.server);
    b.send({ op: 6, d: { token: alice.token, session_id: ready.session_id, seq: 1 } });
    expect((await b.next((f) => f.op === 9)).d).toBe(false);
  });
});

describe('lobby dispatches', () => {
  it('tells members of joins, leaves, messages and connection changes', async () => {
    const carol = await t.guest('Carol');
    const lobby = (await t.req('PUT', '/lobbies', { token: alice.token, body: { secret: 'gw-events' } })).body;
    const a = await RawGateway.open(t.server);
    await a.identify(alice.token);
    const heart = setInterval(() => a.send({ op: 1, d: null }), 300);
    try {
      await t.req('PUT', '/lobbies', { token: carol.token, body: { secret: 'gw-events', member_metadata: { x: '1' } } });
      const add = await a.next((f) => f.t === 'LOBBY_MEMBER_ADD');
      expect(add.d).toMatchObject({ lobby_id: lobby.id, member: { id: carol.userId, metadata: { x: '1' }, connected: false } });

      const c = await RawGateway.open(t.server);
      const cReady = await c.identify(carol.token);
      expect(cReady.lobbies.map((l: any) => l.id)).toContain(lobby.id);
      const up = await a.next((f) => f.t === 'LOBBY_MEMBER_UPDATE' && f.d.member.id === carol.userId && f.d.member.connected === true);
      expect(up.d.lobby_id).toBe(lobby.id);
      // The same member as the add announced (metadata, user), its flag the only change.
      expect(add.d.member.user).toMatchObject({ id: carol.userId });
      expect(up.d.member).toEqual({ ...add.d.member, connected: true });

      await t.req('PUT', '/lobbies', { token: carol.token, body: { secret: 'gw-events', member_metadata: { x: '2' } } });
      await a.next((f) => f.t === 'LOBBY_MEMBER_UPDATE' && f.d.member.metadata?.x === '2');

      await t.req('PUT', '/lobbies', { token: carol.token, body: { secret: 'gw-events', lobby_metadata: { round: '2' } } });
      const lu = await a.next((f) => f.t === 'LOBBY_UPDATE');
      expect(lu.d.metadata).toEqual({ round: '2' });

      await t.req('POST', `/lobbies/${lobby.id}/messages`, { token: carol.token, body: { content: 'hello all' } });
      const m = await a.next((f) => f.t === 'LOBBY_MESSAGE_CREATE');
      expect(m.d).toMatchObject({ content: 'hello all', author: { id: carol.userId } });
      await c.next((f) => f.t === 'LOBBY_MESSAGE_CREATE');

      await t.req('DELETE', `/lobbies/${lobby.id}/members/@me`, { token: carol.token });
      const rm = await a.next((f) => f.t === 'LOBBY_MEMBER_REMOVE');
      expect(rm.d).toEqual({ lobby_id: lobby.id, member: { id: carol.userId } });
      const del = await c.next((f) => f.t === 'LOBBY_DELETE');
      expect(del.d).toEqual({ id: lobby.id, application_id: t.app.id });
      c.ws.close(1000);
    } finally {
      clearInterval(heart);
      a.ws.close(1000);
    }
  });

  it('runs a lobby\'s idle clock from its members\' connections: the last to disconnect starts it, a connect stops it', async () => {
    const lobby = (await t.req('PUT', '/lobbies', { token: bob.token, body: { secret: 'gw-idle-clock' } })).body;
    await t.req('PUT', '/lobbies', { token: alice.token, body: { secret: 'gw-idle-clock' } });
    const idleSince = async () => (await t.server.store.lobbies.get(lobby.id))?.idle_since ?? null;
    const a = await RawGateway.open(t.server);
    const b = await RawGateway.open(t.server);
    const again = await RawGateway.open(t.server);
    try {
      await a.identify(alice.token);
      await vi.waitFor(async () => expect(await idleSince()).toBeNull());
      await b.identify(bob.token);
      // Alice leaves; Bob is still connected, so the clock stays stopped.
      a.ws.close(1000);
      await b.next((f) => f.t === 'LOBBY_MEMBER_UPDATE' && f.d.lobby_id === lobby.id && f.d.member.id === alice.userId && f.d.member.connected === false);
      expect(await idleSince()).toBeNull();
      const before = Date.now();
      b.ws.close(1000);
      await vi.waitFor(async () => expect(Number(await idleSince())).toBeGreaterThanOrEqual(before));
      await again.identify(alice.token);
      await vi.waitFor(async () => expect(await idleSince()).toBeNull());
    } finally {
      for (const g of [a, b, again]) g.ws.close(1000);
    }
    // Both gone again: the clock runs, so the next test starts with nobody connected.
    await vi.waitFor(async () => expect(await idleSince()).not.toBeNull());
  });

  it('deletes a lobby when nobody has been connected for its idle timeout', async () => {
    const lobby = (await t.req('PUT', '/lobbies', { token: bob.token, body: { secret: 'gw-idle', idle_timeout_seconds: 5 } })).body;
    await t.server.store.lobbies.setIdleSince(lobby.id, Date.now() - 6000);
    const g = await RawGateway.open(t.server);
    await g.identify(alice.token);
    const deleted = await t.server.sweepIdleLobbies();
    expect(deleted).toBeGreaterThanOrEqual(1);
    const r = await t.req('GET', `/lobbies/${lobby.id}`, { token: bob.token });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe(10031);
    g.ws.close(1000);
  });
});
