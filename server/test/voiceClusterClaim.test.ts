import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { VoiceCluster } from '../src/voice/VoiceCluster.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, RawGateway, startTestServer, type TestServer } from './harness.ts';

const REDIS_URL = process.env.SOCIAL_LAYER_TEST_REDIS ?? 'redis://127.0.0.1:6379';

afterAll(async () => {
  cleanupTempDirs();
  await dropTestSchemas();
});

/**
 * Voice calls across nodes (issue 18): a call belongs to the node its first member joins
 * through, even with another node looking for ownerless calls every 2 ms. Every node's cluster
 * round claims a call that has voice states and no owner (its owner died); when a joiner's state
 * was published before its node claimed the call, another node's round could take the call in
 * between and move it to itself (voiceCluster.test.ts failed that way once in CI). The race is
 * rare; what makes it impossible is checked directly: the other node reads the call's owner the
 * moment it first hears of the call's first state, and finds it there already.
 */
describe('voice call claims on PostgreSQL + Redis', () => {
  const nodes: TestServer[] = [];
  const sockets: RawGateway[] = [];
  afterAll(async () => {
    for (const s of sockets) s.terminate();
    for (const n of nodes) await n.close();
  });

  it('the first joiner\'s node owns each new call, however often the other node looks for ownerless ones', async () => {
    const database = databaseConfigs().find((c) => c.name === 'postgres')!.config();
    const options = { database, redisUrl: REDIS_URL, redisPrefix: `sltest:${randomBytes(6).toString('hex')}:`, voiceCluster: { intervalMs: 2 } };
    for (let i = 0; i < 2; i++) nodes.push(await startTestServer(options));
    const [a, b] = nodes as [TestServer, TestServer];
    const endpointA = `127.0.0.1:${a.server.port}/voice`;
    // Node B asks Redis for a call's owner as soon as the first state of the call reaches it.
    // The cluster half of the voice states (VoiceClusterSync) applies what other nodes stored.
    const bStates = (b.server.voice.states as unknown as { sync: { applySet(callKey: string, st: unknown): unknown } }).sync;
    const applySet = bStates.applySet.bind(bStates);
    const ownerAtFirstSight = new Map<string, Promise<unknown>>();
    bStates.applySet = (callKey, st) => {
      if (!ownerAtFirstSight.has(callKey)) ownerAtFirstSight.set(callKey, b.server.voice.states.callOwner(callKey));
      return applySet(callKey, st);
    };
    for (let i = 0; i < 12; i++) {
      const g = await a.guest(`Caller ${i}`);
      const lobby = await a.req('PUT', '/lobbies', { token: g.token, body: { secret: randomBytes(8).toString('hex') } });
      expect(lobby.status).toBe(200);
      const gw = await RawGateway.open(a.server);
      sockets.push(gw);
      await gw.identify(g.token);
      gw.send({ op: 4, d: { guild_id: null, channel_id: lobby.body.id, self_mute: false, self_deaf: false } });
      expect((await gw.next((f) => f.t === 'VOICE_SERVER_UPDATE', 10_000)).d.endpoint, `call ${i}`).toBe(endpointA);
      expect(await b.server.voice.states.callOwner(lobby.body.id), `call ${i}`).toMatchObject({ endpoint: endpointA });
      for (let wait = 0; !ownerAtFirstSight.has(lobby.body.id) && wait < 200; wait++) await new Promise((r) => setTimeout(r, 25));
      expect(await ownerAtFirstSight.get(lobby.body.id), `call ${i}: its owner when node B first heard of it`).toMatchObject({ endpoint: endpointA });
    }
  }, 120_000);

  /**
   * A joiner can be the one to find a call's owner gone: its node's claim (claimFirst) then takes
   * the call, and as the call now has an owner no node's round moves it. The members already in
   * it must be moved by that claim, or they stay pointed at the dead owner. The rounds are kept
   * from running here (a minute apart), so only the joiner's claim can move them; the owner's
   * death is its claim lapsing (the key deleted).
   */
  it('a joiner whose node takes a call from a dead owner moves the members already in it', async () => {
    const database = databaseConfigs().find((c) => c.name === 'postgres')!.config();
    const redisPrefix = `sltest:${randomBytes(6).toString('hex')}:`;
    const options = { database, redisUrl: REDIS_URL, redisPrefix, voiceCluster: { intervalMs: 60_000, ttlMs: 60_000 } };
    const a = await startTestServer(options);
    nodes.push(a);
    const b = await startTestServer(options);
    nodes.push(b);
    const endpointB = `127.0.0.1:${b.server.port}/voice`;
    const first = await a.guest('First');
    const second = await a.guest('Second');
    const secret = randomBytes(8).toString('hex');
    const lobby = await a.req('PUT', '/lobbies', { token: first.token, body: { secret } });
    expect((await a.req('PUT', '/lobbies', { token: second.token, body: { secret } })).body.id).toBe(lobby.body.id);
    const gw1 = await RawGateway.open(a.server);
    sockets.push(gw1);
    await gw1.identify(first.token);
    gw1.send({ op: 4, d: { guild_id: null, channel_id: lobby.body.id, self_mute: false, self_deaf: false } });
    await gw1.next((f) => f.t === 'VOICE_SERVER_UPDATE', 10_000);
    for (let wait = 0; b.server.voice.states.voiceStates(lobby.body.id).length === 0 && wait < 200; wait++) await new Promise((r) => setTimeout(r, 25));
    expect(b.server.voice.states.voiceStates(lobby.body.id)).toHaveLength(1);
    // Node A's claim lapses, as a dead owner's does.
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.del(`${redisPrefix}voice:owner:${lobby.body.id}`)).toBe(1);
    } finally {
      redis.disconnect();
    }
    const gw2 = await RawGateway.open(b.server);
    sockets.push(gw2);
    await gw2.identify(second.token);
    gw2.send({ op: 4, d: { guild_id: null, channel_id: lobby.body.id, self_mute: false, self_deaf: false } });
    expect((await gw2.next((f) => f.t === 'VOICE_SERVER_UPDATE', 10_000)).d.endpoint).toBe(endpointB);
    expect(await a.server.voice.states.callOwner(lobby.body.id)).toMatchObject({ endpoint: endpointB });
    // The member who was in the call is sent to the new owner with a fresh token.
    const before = await gw1.next((f) => f.t === 'VOICE_SERVER_UPDATE');
    const moved = await gw1.next((f) => f.t === 'VOICE_SERVER_UPDATE' && f.d.endpoint === endpointB, 5_000);
    expect(moved.d).toMatchObject({ lobby_id: lobby.body.id, endpoint: endpointB });
    expect(moved.d.token).not.toBe(before.d.token);
  }, 60_000);

  /**
   * A dead node's members lapse on some survivor while another may be adopting one of them (the
   * session resumed there): the lapse removes a state only while it still names the dead node,
   * and an adoption writes only over a state still stored. Unconditional, the first ordering
   * announced a resumed member gone, and the second brought back a state nobody would ever end.
   */
  it('lapses a state only while it names the dead node, and adopts one only while it is stored', async () => {
    const cluster = new VoiceCluster(REDIS_URL, () => '127.0.0.1:1/voice', { prefix: `sltest:${randomBytes(6).toString('hex')}:voice:` });
    try {
      await cluster.ready();
      const state = (n: string) => ({ s: { lobby_id: 'L', channel_id: 'L', user_id: 'u', session_id: 's', self_mute: false, self_deaf: false } as never, n, a: 'app', g: null });
      await cluster.saveState('L', state('dead'));
      // Adopted by node C first: the lapse of the dead node's entry leaves it.
      expect(await cluster.adoptState('L', state('C'))).toBe(true);
      expect(await cluster.removeStateOf('L', 'u', 'dead')).toBe(false);
      expect((await cluster.state('L', 'u'))?.n).toBe('C');
      // Lapsed first: the adoption that comes after writes nothing back.
      expect(await cluster.removeStateOf('L', 'u', 'C')).toBe(true);
      expect(await cluster.removeStateOf('L', 'u', 'C')).toBe(false);
      expect(await cluster.adoptState('L', state('D'))).toBe(false);
      expect(await cluster.state('L', 'u')).toBeUndefined();
      expect((await cluster.allStates()).has('L')).toBe(false);
    } finally {
      await cluster.close();
    }
  });
});
