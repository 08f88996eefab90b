import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseConfig } from '../src/index.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, RawGateway, startTestServer, tempDir, type TestServer } from './harness.ts';

const REDIS_URL = process.env.SOCIAL_LAYER_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const NODE_SCRIPT = fileURLToPath(new URL('./fixtures/clusterNode.mjs', import.meta.url));

/**
 * Presence and lobby connection state across server nodes on PostgreSQL + Redis (issue 18): users
 * on one node look connected to every other, and when a node dies (SIGKILL, no goodbye) the
 * survivors say its users went offline exactly once, then online once when they come back on
 * another node. Quick heartbeats (250 ms, entries lapse 2.5 s after the last) keep it short.
 */
const prefix = `sltest:${randomBytes(6).toString('hex')}:`;
let database: DatabaseConfig;
const cluster = { redisPrefix: prefix, clusterHeartbeatMs: 250, clusterTtlMs: 2500, presenceGraceMs: 300 };
const nodes: TestServer[] = [];
const gateways: RawGateway[] = [];
const children: ChildProcess[] = [];
let appId = '';

// The Gateway heartbeat interval is the default 41 s; a test under load may run longer, so every
// open socket beats (an unbeaten one would be closed, which would read as going offline).
const beat = setInterval(() => {
  for (const g of gateways) if (g.closeCode === null && g.ws.readyState === g.ws.OPEN) g.send({ op: 1, d: null });
}, 5000);

beforeAll(async () => {
  database = databaseConfigs().find((c) => c.name === 'postgres')!.config();
  for (let i = 0; i < 2; i++) nodes.push(await startTestServer({ database, redisUrl: REDIS_URL, ...cluster }));
  appId = nodes[0]!.app.id;
}, 180_000);

afterAll(async () => {
  clearInterval(beat);
  for (const g of gateways) g.terminate();
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const n of nodes) await n.close();
  // The nodes that left cleaned up after themselves; the killed one was reaped by them.
  const redis = new Redis(REDIS_URL);
  const left = await redis.keys(`${prefix}conn:*`);
  await redis.quit();
  cleanupTempDirs();
  await dropTestSchemas();
  expect(left).toEqual([]);
}, 120_000);

/** A guest of the shared application, made through node 0 (every node reads one database). */
async function guest(name: string): Promise<{ token: string; userId: string }> {
  const t = nodes[0]!;
  const r = await t.req('POST', '/partner-sdk/token', { body: { client_id: appId, external_auth_type: 'DEVICE_ID', external_auth_token: randomBytes(16).toString('hex'), preferred_global_name: name } });
  const me = await t.req('GET', '/users/@me', { token: r.body.access_token });
  return { token: r.body.access_token as string, userId: me.body.id as string };
}

async function befriend(a: { token: string; userId: string }, b: { token: string; userId: string }): Promise<void> {
  expect((await nodes[0]!.req('PUT', `/users/@me/relationships/${b.userId}`, { token: a.token, body: {} })).status).toBe(204);
  expect((await nodes[0]!.req('PUT', `/users/@me/relationships/${a.userId}?type=3`, { token: b.token, body: {} })).status).toBe(204);
}

async function connect(url: string, token: string): Promise<{ gw: RawGateway; ready: any }> {
  const gw = new RawGateway(`${url.replace('http', 'ws')}/gateway?v=10&encoding=json`);
  gateways.push(gw);
  await gw.next((f) => f.op === 10, 30_000);
  gw.send({ op: 2, d: { token, properties: { os: 'linux', browser: 'test', device: 'test' } } });
  const ready = (await gw.next((f) => f.t === 'READY', 30_000)).d;
  return { gw, ready };
}

/** A server node in a child process, so it can die as a process dies. */
async function childNode(): Promise<{ url: string; process: ChildProcess }> {
  const child = spawn(process.execPath, [NODE_SCRIPT], {
    env: { ...process.env, CLUSTER_NODE_OPTIONS: JSON.stringify({ database, redisUrl: REDIS_URL, dataDir: tempDir(), ...cluster }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /LISTENING (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`cluster node exited (${code}) before listening`)));
  });
  return { url, process: child };
}

const presenceOf = (gw: RawGateway, userId: string, status: string) => gw.dispatches('PRESENCE_UPDATE').filter((f) => f.d.user.id === userId && f.d.status === status);
const connectedFlags = (gw: RawGateway, userId: string, connected: boolean) =>
  gw.dispatches('LOBBY_MEMBER_UPDATE').filter((f) => f.d.member.id === userId && f.d.member.connected === connected);

/** Long enough for every surviving node to have run several heartbeats (and looked for the dead). */
const severalHeartbeats = () => new Promise((r) => setTimeout(r, 2000));

describe('presence and lobby connection state across nodes', () => {
  it('shows a user connected on one node as online and connected on the others', async () => {
    const [a, b] = nodes as [TestServer, TestServer];
    const alice = await guest('Alice');
    const bob = await guest('Bob');
    await befriend(alice, bob);
    const secret = `s-${randomBytes(4).toString('hex')}`;
    const lobby = (await a.req('PUT', '/lobbies', { token: alice.token, body: { secret } })).body;

    const bobGw = await connect(b.server.url, bob.token);
    // Bob's session lives on node B; his join goes through node A, which must know he is connected.
    const joined = await a.req('PUT', '/lobbies', { token: bob.token, body: { secret } });
    expect(joined.status).toBe(200);
    expect(joined.body.members.find((m: any) => m.id === bob.userId).connected).toBe(true);

    // Alice's READY, built on node A, shows her friend online and her lobby's member connected.
    const { gw: aliceGw, ready } = await connect(a.server.url, alice.token);
    expect(ready.presences.find((p: any) => p.user.id === bob.userId)?.status).toBe('online');
    const readyLobby = ready.lobbies.find((l: any) => l.id === lobby.id);
    expect(readyLobby.members.find((m: any) => m.id === bob.userId).connected).toBe(true);

    // Bob leaves on purpose: Alice hears it once, from whichever node.
    bobGw.gw.ws.close(1000);
    await aliceGw.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === bob.userId && f.d.status === 'offline', 30_000);
    await aliceGw.next((f) => f.t === 'LOBBY_MEMBER_UPDATE' && f.d.member.id === bob.userId && f.d.member.connected === false, 30_000);
    await severalHeartbeats();
    expect(presenceOf(aliceGw, bob.userId, 'offline')).toHaveLength(1);
    expect(connectedFlags(aliceGw, bob.userId, false)).toHaveLength(1);
    // Node B's view agrees (its own session went; node A announced nothing it must repeat).
    const view = await b.req('GET', `/lobbies/${lobby.id}`, { token: alice.token });
    expect(view.status).toBe(200);
    expect(view.body.members.find((m: any) => m.id === bob.userId).connected).toBe(false);
    expect(view.body.members.find((m: any) => m.id === alice.userId).connected).toBe(true);
  }, 180_000);

  it('a status and rich presence set on one node show in READY built on another that had read the old ones', async () => {
    const [a, b] = nodes as [TestServer, TestServer];
    const dan = await guest('Dan');
    const erin = await guest('Erin');
    await befriend(dan, erin);
    const { gw: danGw } = await connect(a.server.url, dan.token);
    // Node B reads (and keeps) Dan's status for Erin's READY.
    const first = await connect(b.server.url, erin.token);
    expect(first.ready.presences.find((p: any) => p.user.id === dan.userId)?.status).toBe('online');
    danGw.send({ op: 3, d: { since: null, afk: false, status: 'idle', activities: [{ type: 0, state: 'Level 3' }] } });
    await first.gw.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === dan.userId && f.d.status === 'idle', 30_000);
    first.gw.ws.close(1000);
    const again = await connect(b.server.url, erin.token);
    const seen = again.ready.presences.find((p: any) => p.user.id === dan.userId);
    expect(seen?.status).toBe('idle');
    expect(seen?.activities.map((x: any) => x.state)).toEqual(['Level 3']);
  }, 180_000);

  it('changes made through different nodes in turn all reach friends: invisible, online, invisible again; a rich presence set on one node and cleared on the other', async () => {
    const [a, b] = nodes as [TestServer, TestServer];
    const fay = await guest('Fay');
    const gus = await guest('Gus');
    await befriend(fay, gus);
    await connect(a.server.url, fay.token);
    const { gw: gusGw } = await connect(b.server.url, gus.token);
    const status = async (node: TestServer, value: string) => expect((await node.req('PATCH', '/users/@me/settings', { token: fay.token, body: { status: value } })).status).toBe(200);
    const last = () => gusGw.dispatches('PRESENCE_UPDATE').filter((f) => f.d.user.id === fay.userId).at(-1)?.d;
    const settle = async (pred: (d: any) => boolean, what: string) => {
      for (let i = 0; i < 200 && !(last() && pred(last())); i++) await new Promise((r) => setTimeout(r, 25));
      expect(last(), what).toBeDefined();
      expect(pred(last()), what).toBe(true);
    };
    await status(a, 'invisible');
    await settle((d) => d.status === 'offline', 'invisible through A');
    await status(b, 'online');
    await settle((d) => d.status === 'online', 'online through B');
    // Each node skipped a view equal to what it alone had sent last: this one went nowhere.
    await status(a, 'invisible');
    await settle((d) => d.status === 'offline', 'invisible through A again');
    await status(b, 'online');
    await settle((d) => d.status === 'online', 'online again');
    // Rich presence: set through B, cleared through A, which had sent the view before it.
    expect((await b.req('PUT', '/users/@me/activities', { token: fay.token, body: { type: 0, state: 'Boss fight' } })).status).toBe(200);
    await settle((d) => d.activities.some((x: any) => x.state === 'Boss fight'), 'the rich presence');
    expect((await a.req('DELETE', '/users/@me/activities', { token: fay.token })).status).toBe(204);
    await settle((d) => !d.activities.some((x: any) => x.state === 'Boss fight'), 'the rich presence cleared');
  }, 180_000);

  it('when a node is killed, the survivors announce its users offline once, and online once when they are back', async () => {
    const [a, b] = nodes as [TestServer, TestServer];
    const carol = await guest('Carol');
    const alice = await guest('Alice2');
    const bob = await guest('Bob2');
    await befriend(carol, alice);
    await befriend(carol, bob);
    const secret = `k-${randomBytes(4).toString('hex')}`;
    for (const u of [alice, bob, carol]) expect((await a.req('PUT', '/lobbies', { token: u.token, body: { secret } })).status).toBe(200);

    const doomed = await childNode();
    const { gw: aliceGw } = await connect(a.server.url, alice.token);
    const { gw: bobGw } = await connect(b.server.url, bob.token);
    const watchers = [aliceGw, bobGw];
    const carolGw = await connect(doomed.url, carol.token);
    for (const w of watchers) {
      await w.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === carol.userId && f.d.status === 'online', 30_000);
      await w.next((f) => f.t === 'LOBBY_MEMBER_UPDATE' && f.d.member.id === carol.userId && f.d.member.connected === true, 30_000);
    }

    // No shutdown, no goodbye: the node's entries in Redis lapse and a survivor reaps them.
    doomed.process.kill('SIGKILL');
    await carolGw.gw.closed(30_000);
    for (const w of watchers) {
      await w.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === carol.userId && f.d.status === 'offline', 30_000);
      await w.next((f) => f.t === 'LOBBY_MEMBER_UPDATE' && f.d.member.id === carol.userId && f.d.member.connected === false, 30_000);
    }
    await severalHeartbeats();
    for (const w of watchers) {
      expect(presenceOf(w, carol.userId, 'offline')).toHaveLength(1);
      expect(connectedFlags(w, carol.userId, false)).toHaveLength(1);
    }

    // Carol comes back on a surviving node: online again, once.
    await connect(b.server.url, carol.token);
    for (const w of watchers) {
      await until(() => presenceOf(w, carol.userId, 'online').length >= 2 && connectedFlags(w, carol.userId, true).length >= 2, 'Carol back online');
    }
    await severalHeartbeats();
    for (const w of watchers) {
      expect(presenceOf(w, carol.userId, 'online')).toHaveLength(2);
      expect(connectedFlags(w, carol.userId, true)).toHaveLength(2);
      expect(presenceOf(w, carol.userId, 'offline')).toHaveLength(1);
    }
    // A child process compiles the server's sources with tsx before it listens: slow under load.
  }, 300_000);
});

async function until(cond: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
