import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userTopic } from '../src/events/EventBus.ts';
import { RedisEventBus } from '../src/events/RedisEventBus.ts';
import { resumeKeys } from '../src/events/resumeKeys.ts';
import { RedisSessionStore } from '../src/gateway/RedisSessionStore.ts';
import type { DatabaseConfig } from '../src/index.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, RawGateway, startTestServer, tempDir, type TestServer } from './harness.ts';

/**
 * Gateway Resume (issue 18), one suite over both session stores (DESIGN.md convention 5): this
 * node's memory, and Redis, where the session also resumes on another node, including after the
 * node it was on is killed with SIGKILL. Real nodes, real PostgreSQL and Redis, raw sockets.
 */
const REDIS_URL = process.env.SOCIAL_LAYER_TEST_REDIS ?? 'redis://127.0.0.1:6379';
/** This file's own keys and channels on the shared Redis. */
const PREFIX = `t18:${randomBytes(4).toString('hex')}:`;
const NODE_SCRIPT = join(fileURLToPath(new URL('.', import.meta.url)), 'gatewayNode.ts');
/** Long enough for a few HTTP requests on a loaded machine between the cut and the Resume. */
const RESUME_WINDOW_MS = 8000;
const MAX_BUFFERED = 50;

const servers: TestServer[] = [];
const buses: RedisEventBus[] = [];
const children = new Set<ChildProcess>();

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  for (const s of servers) await s.close().catch(() => {});
  for (const b of buses) await b.close();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  cleanupTempDirs();
  await dropTestSchemas();
});

async function redisBus(): Promise<RedisEventBus> {
  const bus = new RedisEventBus(REDIS_URL, PREFIX);
  await bus.ready();
  buses.push(bus);
  return bus;
}

const nodeOptions = { rateLimits: false, resumeWindowMs: RESUME_WINDOW_MS, maxBufferedDispatches: MAX_BUFFERED } as const;

async function redisNode(database: DatabaseConfig): Promise<TestServer> {
  const node = await startTestServer({ ...nodeOptions, database, redisUrl: REDIS_URL, bus: await redisBus() });
  servers.push(node);
  return node;
}

function gatewayUrl(httpUrl: string): string {
  return `${httpUrl.replace(/^http/, 'ws')}/gateway?v=10&encoding=json`;
}

async function openGateway(httpUrl: string): Promise<RawGateway> {
  const g = new RawGateway(gatewayUrl(httpUrl));
  await g.next((f) => f.op === 10);
  return g;
}

interface Players {
  alice: { token: string; userId: string };
  bob: { token: string; userId: string };
  lobbyId: string;
}

/** Alice and Bob in one lobby: Bob's lobby messages are dispatches on Alice's user topic. */
async function players(node: TestServer): Promise<Players> {
  const alice = await node.guest('Alice');
  const bob = await node.guest('Bob');
  const secret = `resume-${randomBytes(6).toString('hex')}`;
  const lobby = (await node.req('PUT', '/lobbies', { token: alice.token, body: { secret } })).body;
  expect((await node.req('PUT', '/lobbies', { token: bob.token, body: { secret } })).status).toBe(200);
  return { alice, bob, lobbyId: lobby.id };
}

async function say(node: TestServer, p: Players, content: string): Promise<void> {
  const r = await node.req('POST', `/lobbies/${p.lobbyId}/messages`, { token: p.bob.token, body: { content } });
  expect(r.status).toBe(200);
}

function lastSeq(g: RawGateway): number {
  return Math.max(0, ...g.frames.filter((f) => typeof f.s === 'number').map((f) => f.s as number));
}

/** Every dispatch a client saw over its sockets numbers 1, 2, 3, ... with no gap and no repeat. */
function expectContiguous(frames: any[]): void {
  const seqs = frames.filter((f) => f.op === 0).map((f) => f.s as number);
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
}

function messages(frames: any[]): string[] {
  return frames.filter((f) => f.t === 'LOBBY_MESSAGE_CREATE').map((f) => f.d.content as string);
}

function resume(g: RawGateway, token: string, sessionId: string, seq: number): void {
  g.send({ op: 6, d: { token, session_id: sessionId, seq } });
}

/** Frames the first socket got, then the second's (the resumed session continues the numbering). */
function joined(before: RawGateway, after: RawGateway): any[] {
  const seen = before.frames.filter((f) => f.op === 0);
  return [...seen, ...after.frames.filter((f) => f.op === 0)];
}

/**
 * Resumes `g1`'s session on `node`, sends one more lobby message through `via`, and checks that
 * the client saw `expected` then that one, in order, numbered without a gap. Returns the new socket.
 */
async function resumeAndExpect(g1: RawGateway, node: TestServer, via: TestServer, p: Players, sessionId: string, expected: string[]): Promise<RawGateway> {
  const g2 = await openGateway(node.server.url);
  resume(g2, p.alice.token, sessionId, lastSeq(g1));
  await g2.next((f) => f.t === 'RESUMED', 15_000);
  await say(via, p, 'after');
  await g2.next((f) => f.t === 'LOBBY_MESSAGE_CREATE' && f.d.content === 'after', 15_000);
  await new Promise((r) => setTimeout(r, 300));
  const all = joined(g1, g2);
  expectContiguous(all);
  expect(messages(all)).toEqual([...expected, 'after']);
  return g2;
}

interface Mode {
  name: string;
  /** Where the client identifies, and where it resumes. */
  nodes(): Promise<{ first: TestServer; second: TestServer }>;
}

const memory: { node?: TestServer } = {};
const cluster: { a?: TestServer; b?: TestServer; database?: DatabaseConfig } = {};

async function clusterNodes(): Promise<{ a: TestServer; b: TestServer; database: DatabaseConfig }> {
  if (!cluster.a) {
    // One PostgreSQL schema for both nodes (tracked by the harness and dropped afterwards).
    cluster.database = databaseConfigs().find((c) => c.name === 'postgres')!.config();
    cluster.a = await redisNode(cluster.database);
    cluster.b = await redisNode(cluster.database);
  }
  return { a: cluster.a, b: cluster.b!, database: cluster.database! };
}

const modes: Mode[] = [
  {
    name: 'memory, same node',
    async nodes() {
      if (!memory.node) servers.push((memory.node = await startTestServer({ ...nodeOptions })));
      return { first: memory.node, second: memory.node };
    },
  },
  {
    name: 'redis, same node',
    async nodes() {
      const { a } = await clusterNodes();
      return { first: a, second: a };
    },
  },
  {
    name: 'redis, other node',
    async nodes() {
      const { a, b } = await clusterNodes();
      return { first: a, second: b };
    },
  },
];

describe.each(modes)('Gateway Resume ($name)', (mode) => {
  it('sends every dispatch missed while cut, in order, once, then RESUMED, and numbers on', async () => {
    const { first, second } = await mode.nodes();
    const p = await players(first);
    const g1 = await openGateway(first.server.url);
    const ready = await g1.identify(p.alice.token);
    await say(second, p, 'before-1');
    await say(first, p, 'before-2');
    await g1.next((f) => f.t === 'LOBBY_MESSAGE_CREATE' && f.d.content === 'before-2');
    g1.terminate();
    // Published while the client is away, through both nodes.
    for (let i = 1; i <= 5; i++) await say(i % 2 ? second : first, p, `missed-${i}`);
    const g2 = await openGateway(second.server.url);
    resume(g2, p.alice.token, ready.session_id, lastSeq(g1));
    const resumed = await g2.next((f) => f.t === 'RESUMED', 15_000);
    await say(second, p, 'after-1');
    await g2.next((f) => f.t === 'LOBBY_MESSAGE_CREATE' && f.d.content === 'after-1', 15_000);
    await new Promise((r) => setTimeout(r, 300));
    const all = joined(g1, g2);
    expectContiguous(all);
    expect(messages(all)).toEqual(['before-1', 'before-2', 'missed-1', 'missed-2', 'missed-3', 'missed-4', 'missed-5', 'after-1']);
    // RESUMED follows the replayed frames; the live one after it continues the numbering.
    expect(messages(g2.frames.filter((f) => f.op === 0 && f.s < resumed.s))).toEqual(['missed-1', 'missed-2', 'missed-3', 'missed-4', 'missed-5']);
    g2.ws.close(1000);
  });

  it('closes with 4007 when the seq is ahead of the session', async () => {
    const { first, second } = await mode.nodes();
    const p = await players(first);
    const g1 = await openGateway(first.server.url);
    const ready = await g1.identify(p.alice.token);
    g1.terminate();
    const g2 = await openGateway(second.server.url);
    resume(g2, p.alice.token, ready.session_id, lastSeq(g1) + 10);
    expect(await g2.closed(15_000)).toBe(4007);
    // The session is still there for a correct Resume.
    const g3 = await openGateway(second.server.url);
    resume(g3, p.alice.token, ready.session_id, lastSeq(g1));
    await g3.next((f) => f.t === 'RESUMED', 15_000);
    g3.ws.close(1000);
  });

  it('answers op 9 for an unknown session, another user\'s token, a cleanly closed session and an expired one', async () => {
    const { first, second } = await mode.nodes();
    const p = await players(first);
    const unknown = await openGateway(second.server.url);
    resume(unknown, p.alice.token, randomBytes(16).toString('hex'), 0);
    expect((await unknown.next((f) => f.op === 9, 15_000)).d).toBe(false);

    const g1 = await openGateway(first.server.url);
    const ready = await g1.identify(p.alice.token);
    g1.terminate();
    const wrong = await openGateway(second.server.url);
    resume(wrong, p.bob.token, ready.session_id, lastSeq(g1));
    await wrong.next((f) => f.op === 9, 15_000);

    const clean = await openGateway(first.server.url);
    const cleanReady = await clean.identify(p.alice.token);
    clean.ws.close(1000);
    await clean.closed();
    await new Promise((r) => setTimeout(r, 300));
    const afterClean = await openGateway(second.server.url);
    resume(afterClean, p.alice.token, cleanReady.session_id, lastSeq(clean));
    await afterClean.next((f) => f.op === 9, 15_000);

    // The first session's window ends: nothing resumes it any more, on any node.
    await new Promise((r) => setTimeout(r, RESUME_WINDOW_MS + 1500));
    const late = await openGateway(second.server.url);
    resume(late, p.alice.token, ready.session_id, lastSeq(g1));
    await late.next((f) => f.op === 9, 15_000);
  }, 60_000);

  it('takes the session from a half-open socket, which is closed without ending it', async () => {
    const { first, second } = await mode.nodes();
    const p = await players(first);
    const g1 = await openGateway(first.server.url);
    const ready = await g1.identify(p.alice.token);
    await say(first, p, 'one');
    await g1.next((f) => f.t === 'LOBBY_MESSAGE_CREATE');
    // The old socket stays open (as a half-open one would, from the server's side).
    const g2 = await openGateway(second.server.url);
    resume(g2, p.alice.token, ready.session_id, lastSeq(g1));
    await g2.next((f) => f.t === 'RESUMED', 15_000);
    expect(await g1.closed(15_000)).toBe(4009);
    await say(first, p, 'two');
    await g2.next((f) => f.t === 'LOBBY_MESSAGE_CREATE' && f.d.content === 'two', 15_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(messages(g2.frames)).toEqual(['two']);
    expectContiguous(joined(g1, g2));
    g2.ws.close(1000);
  });
});

/** Starts a node as a child process (so it can be SIGKILLed) and waits for its ready line. */
async function childNode(database: DatabaseConfig): Promise<{ child: ChildProcess; url: string }> {
  const cfg = { database, dataDir: tempDir(), redisUrl: REDIS_URL, prefix: PREFIX, resumeWindowMs: RESUME_WINDOW_MS };
  const child = spawn(process.execPath, ['--import', 'tsx', NODE_SCRIPT, JSON.stringify(cfg)], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  child.on('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`node did not start: ${stderr}`)), 90_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        clearTimeout(timer);
        resolve({ child, url: JSON.parse(line).url });
      }
    });
    child.on('exit', (code) => reject(new Error(`node exited ${code}: ${stderr}`)));
  });
}

describe('Gateway Resume across nodes (Redis)', () => {
  let a: TestServer;
  let b: TestServer;
  let database: DatabaseConfig;
  beforeAll(async () => {
    ({ a, b, database } = await clusterNodes());
  }, 120_000);

  it('resumes on another node after the first is killed with SIGKILL: nothing lost, nothing twice', async () => {
    const killed = await childNode(database);
    const p = await players(b);
    const g1 = await openGateway(killed.url);
    const ready = await g1.identify(p.alice.token);
    // The resume URL is the public one every node shares, not the killed node's own socket.
    expect(ready.resume_gateway_url).toBe(gatewayUrl(killed.url).replace(/\?.*$/, ''));
    for (let i = 1; i <= 3; i++) await say(b, p, `live-${i}`);
    await g1.next((f) => f.t === 'LOBBY_MESSAGE_CREATE' && f.d.content === 'live-3', 15_000);
    await new Promise<void>((r) => {
      killed.child.once('exit', () => r());
      killed.child.kill('SIGKILL');
    });
    // Nobody holds the session now: these are kept by the bus in Alice's user stream.
    for (let i = 1; i <= 4; i++) await say(i % 2 ? a : b, p, `gap-${i}`);
    const g2 = await resumeAndExpect(g1, b, a, p, ready.session_id, ['live-1', 'live-2', 'live-3', 'gap-1', 'gap-2', 'gap-3', 'gap-4']);
    // The token is kept as a hash only.
    const redis = new Redis(REDIS_URL);
    try {
      const record = await redis.hgetall(resumeKeys.session(PREFIX, ready.session_id));
      expect(record.th).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(record)).not.toContain(p.alice.token);
    } finally {
      await redis.quit();
    }
    g2.ws.close(1000);
  }, 150_000);

  it('a Resume whose rebuild fails (4000) leaves nothing half-built: the next Resume gets every missed dispatch once', async () => {
    const p = await players(a);
    const g1 = await openGateway(a.server.url);
    const ready = await g1.identify(p.alice.token);
    await say(a, p, 'seen');
    await g1.next((f) => f.t === 'LOBBY_MESSAGE_CREATE' && f.d.content === 'seen', 15_000);
    g1.terminate();
    await say(a, p, 'missed-1');
    // Node B's first rebuild fails, as on a Redis error mid-read.
    const restore = RedisSessionStore.prototype.restore;
    let failures = 0;
    RedisSessionStore.prototype.restore = function (...args) {
      if (failures++ === 0) return Promise.reject(new Error('injected: Redis went away'));
      return restore.apply(this, args);
    };
    try {
      const failed = await openGateway(b.server.url);
      resume(failed, p.alice.token, ready.session_id, lastSeq(g1));
      expect(await failed.closed(15_000)).toBe(4000);
      await say(b, p, 'missed-2');
      // Kept, the half-built copy (claimed, never restored) was what this Resume found: 4007.
      const g2 = await resumeAndExpect(g1, b, a, p, ready.session_id, ['seen', 'missed-1', 'missed-2']);
      expect(failures).toBe(2);
      g2.ws.close(1000);
    } finally {
      RedisSessionStore.prototype.restore = restore;
    }
  });

  it('a node whose bus subscriber was cut hands its sessions back: the client resumes and gets what was published meanwhile', async () => {
    // A node of its own on the same database (B's): its subscriber is the one cut.
    const busA = await redisBus();
    const nodeA = await startTestServer({ ...nodeOptions, database, redisUrl: REDIS_URL, bus: busA });
    servers.push(nodeA);
    const p = await players(b);
    const g1 = await openGateway(nodeA.server.url);
    const ready = await g1.identify(p.alice.token);
    await say(b, p, 'before');
    await g1.next((f) => f.t === 'LOBBY_MESSAGE_CREATE' && f.d.content === 'before', 15_000);
    // A network blip on node A's subscriber: what B publishes now never reaches A over pub/sub.
    const redis = new Redis(REDIS_URL);
    try {
      const line = String(await redis.client('LIST')).split('\n').find((l) => l.includes(`name=sl-bus-sub-${(busA as unknown as { nodeId: string }).nodeId}`));
      expect(line).toBeDefined();
      await redis.client('KILL', 'ID', /id=(\d+)/.exec(line!)![1]!);
    } finally {
      await redis.quit();
    }
    await say(b, p, 'during');
    // Back, A tells its client to reconnect (op 7), and the Resume rebuilds the session from Redis.
    await g1.next((f) => f.op === 7, 15_000);
    expect(await g1.closed(15_000)).toBe(4000);
    const g2 = await resumeAndExpect(g1, nodeA, b, p, ready.session_id, ['before', 'during']);
    g2.ws.close(1000);
  });

  it('matches the token with or without its Bearer prefix across nodes', async () => {
    const p = await players(a);
    const g1 = await openGateway(a.server.url);
    const ready = await g1.identify(`Bearer ${p.alice.token}`);
    g1.terminate();
    const g2 = await openGateway(b.server.url);
    resume(g2, p.alice.token, ready.session_id, lastSeq(g1));
    await g2.next((f) => f.t === 'RESUMED', 15_000);
    g2.ws.close(1000);
  });

  it('bounds the session and user streams by count; a Resume from before what is kept gets op 9', async () => {
    const p = await players(a);
    const g1 = await openGateway(a.server.url);
    const ready = await g1.identify(p.alice.token);
    const bus = await redisBus();
    bus.streamUserTopics({ maxLen: MAX_BUFFERED, ttlMs: 60_000, maxAgeMs: 60_000 });
    const total = 6 * MAX_BUFFERED;
    for (let i = 1; i <= total; i++) bus.publish(userTopic(a.app.id, p.alice.userId), { t: 'TEST_EVENT', json: JSON.stringify({ i }) });
    await g1.next((f) => f.t === 'TEST_EVENT' && f.d.i === total, 30_000);
    const redis = new Redis(REDIS_URL);
    try {
      // MAXLEN ~ trims whole stream nodes (100 entries by default): at least MAX_BUFFERED stay, at most a node more.
      const sessionLen = await redis.xlen(resumeKeys.sessionStream(PREFIX, ready.session_id));
      const userLen = await redis.xlen(resumeKeys.userStream(PREFIX, userTopic(a.app.id, p.alice.userId)));
      expect(sessionLen).toBeGreaterThanOrEqual(MAX_BUFFERED);
      expect(sessionLen).toBeLessThanOrEqual(MAX_BUFFERED + 100);
      expect(userLen).toBeGreaterThanOrEqual(MAX_BUFFERED);
      expect(userLen).toBeLessThanOrEqual(MAX_BUFFERED + 100);
      expect(lastSeq(g1)).toBeGreaterThan(total);
    } finally {
      await redis.quit();
    }
    g1.terminate();
    const g2 = await openGateway(b.server.url);
    resume(g2, p.alice.token, ready.session_id, 1);
    expect((await g2.next((f) => f.op === 9, 15_000)).d).toBe(false);
  }, 60_000);
});

/** Entries older than this are trimmed on the next append, on the two nodes below. */
const AGE_MS = 1500;

describe('Gateway Resume across nodes: the old node\'s copy when its window runs out (Redis)', () => {
  it('a session resumed elsewhere keeps its voice seat when the old node missed the takeover and its window ends', async () => {
    const database = databaseConfigs().find((c) => c.name === 'postgres')!.config();
    const windowMs = 1500;
    // Node A loses the takeover announcement (pub/sub drops messages across a reconnect).
    const busA = await redisBus();
    let dropRelease = false;
    const subscribe = busA.subscribe.bind(busA);
    busA.subscribe = (topic, handler) => subscribe(topic, topic === 'gw:release' ? (d) => void (dropRelease || handler(d)) : handler);
    const options = { ...nodeOptions, resumeWindowMs: windowMs, database, redisUrl: REDIS_URL };
    const a = await startTestServer({ ...options, bus: busA });
    servers.push(a);
    const b = await startTestServer({ ...options, bus: await redisBus() });
    servers.push(b);
    const p = await players(a);
    const g1 = await openGateway(a.server.url);
    const ready = await g1.identify(p.alice.token);
    g1.send({ op: 4, d: { guild_id: null, channel_id: p.lobbyId, self_mute: false, self_deaf: false } });
    await g1.next((f) => f.t === 'VOICE_SERVER_UPDATE', 15_000);
    const inCall = (node: TestServer) => node.server.voice.states.voiceStates(p.lobbyId).some((s) => s.user_id === p.alice.userId);
    for (let i = 0; i < 200 && !inCall(b); i++) await new Promise((r) => setTimeout(r, 25));
    expect(inCall(b)).toBe(true);
    dropRelease = true;
    g1.terminate();
    const g2 = await openGateway(b.server.url);
    resume(g2, p.alice.token, ready.session_id, lastSeq(g1));
    await g2.next((f) => f.t === 'RESUMED', 15_000);
    // A's window runs out with its copy still there; B holds the session.
    await new Promise((r) => setTimeout(r, windowMs + 1500));
    expect(inCall(b)).toBe(true);
    expect(inCall(a)).toBe(true);
    expect(g2.frames.filter((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.user_id === p.alice.userId && f.d.channel_id === null)).toEqual([]);
    expect(g2.closeCode).toBeNull();
    g2.ws.close(1000);
  }, 60_000);
});

describe('Gateway session records (Redis)', () => {
  it('marks a session\'s start in its user stream only on a record that still exists: one that ended meanwhile is not written back', async () => {
    const store = new RedisSessionStore(REDIS_URL, { nodeId: 'n1', prefix: PREFIX, resumeWindowMs: 5000, attachedTtlMs: 10_000, maxLen: 50, maxAgeMs: 60_000 });
    const redis = new Redis(REDIS_URL);
    try {
      const topic = userTopic('app', `u-${randomBytes(4).toString('hex')}`);
      const entry = await redis.xadd(resumeKeys.userStream(PREFIX, topic), '*', 't', 'X', 'j', '{}');
      const meta = { kind: 'bearer', intents: 0, capabilities: 0 } as const;
      await store.open('live', topic, 'u', 'app', 'token', meta);
      await store.markFrom('live', topic);
      expect(await redis.hget(resumeKeys.session(PREFIX, 'live'), 'from')).toBe(entry);
      // Ended (a clean close) between open and markFrom: the record stays gone.
      await store.open('gone', topic, 'u', 'app', 'token', meta);
      await store.ended('gone');
      await store.markFrom('gone', topic);
      expect(await redis.exists(resumeKeys.session(PREFIX, 'gone'))).toBe(0);
      // And a record another node took over is not this node's to mark.
      await store.open('taken', topic, 'u', 'app', 'token', meta);
      await redis.hset(resumeKeys.session(PREFIX, 'taken'), 'node', 'n2', 'from', '0-0');
      await store.markFrom('taken', topic);
      expect(await redis.hget(resumeKeys.session(PREFIX, 'taken'), 'from')).toBe('0-0');
    } finally {
      await redis.quit();
      await store.close();
    }
  });
});

describe('Gateway session streams bounded by count (Redis)', () => {
  it('a session sent more frames than its stream keeps, few of them its user\'s: a Resume elsewhere sends none of those again', async () => {
    const maxLen = 20;
    const options = { prefix: PREFIX, resumeWindowMs: 5000, attachedTtlMs: 10_000, maxLen, maxAgeMs: 60_000 };
    const a = new RedisSessionStore(REDIS_URL, { ...options, nodeId: 'count-a' });
    const b = new RedisSessionStore(REDIS_URL, { ...options, nodeId: 'count-b' });
    const redis = new Redis(REDIS_URL);
    try {
      const topic = userTopic('app', `u-${randomBytes(4).toString('hex')}`);
      const sid = `count-${randomBytes(4).toString('hex')}`;
      await a.open(sid, topic, 'u', 'app', 'token', { kind: 'bot', intents: 0, capabilities: 0 });
      let s = 0;
      const frame = (t: string) => `{"op":0,"t":"${t}","s":${s},"d":{}}`;
      // Five of the user's dispatches (in the user stream, and sent), then many guild frames.
      const entries: string[] = [];
      for (let i = 0; i < 5; i++) {
        const id = (await redis.xadd(resumeKeys.userStream(PREFIX, topic), '*', 't', 'MESSAGE_CREATE', 'j', `{"n":${i}}`))!;
        entries.push(id);
        s++;
        expect(await a.append(sid, s, frame('MESSAGE_CREATE'), id)).toBe(true);
      }
      for (let i = 0; i < 3 * maxLen; i++) {
        s++;
        expect(await a.append(sid, s, frame('GUILD_MEMBER_UPDATE'), '')).toBe(true);
      }
      expect(await redis.xlen(resumeKeys.sessionStream(PREFIX, sid))).toBe(maxLen);
      const claimed = await b.claim(sid, 'token');
      expect(claimed?.trimmedUpTo).toBe(entries[4]);
      const restored = await b.restore(sid, topic, claimed!.from, claimed!.trimmedUpTo);
      expect(restored).not.toBe('lost');
      if (restored === 'lost') return;
      expect(restored.frames.map((f) => f.s)).toEqual(Array.from({ length: maxLen }, (_, i) => s - maxLen + 1 + i));
      // The five were sent (their frames trimmed by count): none comes back as missed.
      expect(restored.missed).toEqual([]);
    } finally {
      await redis.quit();
      await a.close();
      await b.close();
    }
  });
});

describe('Gateway Resume streams bounded by age (Redis)', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    const { database } = await clusterNodes();
    for (const n of [0, 1]) {
      const node = await startTestServer({ ...nodeOptions, database, redisUrl: REDIS_URL, bus: await redisBus(), resumeStreamMaxAgeMs: AGE_MS });
      servers.push(node);
      if (n === 0) a = node;
      else b = node;
    }
  }, 120_000);

  /** Alice identified on node a and sent `n` lobby messages `${tag}-1` to `${tag}-n`, the last one received. */
  async function aliceAfter(tag: string, n: number) {
    const p = await players(a);
    const g1 = await openGateway(a.server.url);
    const ready = await g1.identify(p.alice.token);
    for (let i = 1; i <= n; i++) await say(a, p, `${tag}-${i}`);
    await g1.next((f) => f.t === 'LOBBY_MESSAGE_CREATE' && f.d.content === `${tag}-${n}`, 15_000);
    return { p, g1, ready };
  }

  /**
   * A quiet session: three messages, a pause longer than the age bound, one more (its append
   * trims the old frames), then the socket is cut, two messages go out through the other node,
   * and the client resumes there. `trimUserStream` also trims Alice's user stream exactly up to
   * the last message before the cut, as the age trim does once whole stream nodes are old.
   */
  async function quietSession(trimUserStream: boolean): Promise<void> {
    const { p, g1, ready } = await aliceAfter('old', 3);
    const redis = new Redis(REDIS_URL);
    try {
      const sessionStream = resumeKeys.sessionStream(PREFIX, ready.session_id);
      const userStream = resumeKeys.userStream(PREFIX, userTopic(a.app.id, p.alice.userId));
      // old-3's user-stream entry, read while nothing is old enough to be trimmed.
      const old3 = (await redis.xrange(userStream, '-', '+')).find(([, f]) => f.join(' ').includes('old-3'))?.[0];
      expect(old3).toMatch(/^\d+-\d+$/);
      await new Promise((r) => setTimeout(r, AGE_MS + 300));
      await say(a, p, 'new-1');
      await g1.next((f) => f.t === 'LOBBY_MESSAGE_CREATE' && f.d.content === 'new-1', 15_000);
      // The session stream lost every frame older than the bound (READY and old-1..3), exactly.
      await expect.poll(async () => (await redis.xrange(sessionStream, '-', '+')).map(([, f]) => f[f.indexOf('f') + 1]).join('\n'), { timeout: 5000 }).toContain('new-1');
      const kept = (await redis.xrange(sessionStream, '-', '+')).map(([, f]) => f[f.indexOf('f') + 1]!);
      expect(kept.some((frame) => frame.includes('old-') || frame.includes('"READY"'))).toBe(false);
      // ...and the record names the newest user-stream entry among them: old-3's.
      expect(await redis.hget(resumeKeys.session(PREFIX, ready.session_id), 'tu')).toBe(old3);
      const entries = await redis.xrange(userStream, '-', '+');
      if (trimUserStream) {
        const newest = entries.find(([, f]) => f.join(' ').includes('new-1'))![0];
        await redis.xtrim(userStream, 'MINID', newest);
        expect((await redis.xrange(userStream, '-', '+')).map(([id]) => id)).toEqual([newest]);
      }
    } finally {
      await redis.quit();
    }
    g1.terminate();
    for (let i = 1; i <= 2; i++) await say(b, p, `gap-${i}`);
    const g2 = await openGateway(b.server.url);
    resume(g2, p.alice.token, ready.session_id, lastSeq(g1));
    const first = await g2.next((f) => f.t === 'RESUMED' || f.op === 9, 15_000);
    expect(first.t).toBe('RESUMED');
    await say(b, p, 'after');
    await g2.next((f) => f.t === 'LOBBY_MESSAGE_CREATE' && f.d.content === 'after', 15_000);
    await new Promise((r) => setTimeout(r, 300));
    const all = joined(g1, g2);
    expectContiguous(all);
    // Nothing the session had is sent again (the old messages are still in the user stream
    // unless trimmed), and nothing it lacked is lost.
    expect(messages(all)).toEqual(['old-1', 'old-2', 'old-3', 'new-1', 'gap-1', 'gap-2', 'after']);
    g2.ws.close(1000);
  }

  it('trims a quiet session\'s old frames; it resumes on another node with nothing sent twice', () => quietSession(false), 60_000);

  it('resumes on another node when the age trim took the user stream\'s entries up to the cut: nothing lost', () => quietSession(true), 60_000);

  it('trims the user stream by age: a burst long past leaves at most one stream node', async () => {
    const p = await players(a);
    const g1 = await openGateway(a.server.url);
    const ready = await g1.identify(p.alice.token);
    const bus = await redisBus();
    bus.streamUserTopics({ maxLen: 10_000, ttlMs: 60_000, maxAgeMs: AGE_MS });
    const topic = userTopic(a.app.id, p.alice.userId);
    const burst = 600;
    for (let i = 1; i <= burst; i++) bus.publish(topic, { t: 'TEST_EVENT', json: JSON.stringify({ i }) });
    await g1.next((f) => f.t === 'TEST_EVENT' && f.d.i === burst, 30_000);
    const redis = new Redis(REDIS_URL);
    try {
      const userStream = resumeKeys.userStream(PREFIX, topic);
      expect(await redis.xlen(userStream)).toBeGreaterThanOrEqual(burst);
      await new Promise((r) => setTimeout(r, AGE_MS + 300));
      bus.publish(topic, { t: 'TEST_EVENT', json: JSON.stringify({ i: burst + 1 }) });
      await g1.next((f) => f.t === 'TEST_EVENT' && f.d.i === burst + 1, 15_000);
      // MINID ~ removes whole stream nodes (at most 100 entries each): what stays is the newest node.
      await expect.poll(() => redis.xlen(userStream), { timeout: 5000 }).toBeLessThanOrEqual(101);
      expect((await redis.xrevrange(userStream, '+', '-', 'COUNT', 1))[0]![1].join(' ')).toContain(`"i":${burst + 1}`);
      // The session's own stream keeps only the frame appended after the pause.
      expect(await redis.xlen(resumeKeys.sessionStream(PREFIX, ready.session_id))).toBe(1);
    } finally {
      await redis.quit();
    }
    g1.ws.close(1000);
  }, 60_000);

  it('every stream a node writes has an expiry, though most appends skip the upkeep', async () => {
    const { p, g1, ready } = await aliceAfter('m', 20);
    const sentAt = Date.now(); // m-20 was published before this
    const redis = new Redis(REDIS_URL);
    try {
      const userStream = resumeKeys.userStream(PREFIX, userTopic(a.app.id, p.alice.userId));
      for (const key of [userStream, resumeKeys.sessionStream(PREFIX, ready.session_id)]) {
        expect(await redis.xlen(key), key).toBeGreaterThanOrEqual(20);
        expect(await redis.pttl(key), key).toBeGreaterThan(0);
      }
      // The user stream outlives its last publish by at least the record's lifetime (the resume
      // window plus two default heartbeats), as when every publish renewed its expiry; 50 ms for
      // the round trips. Renewed only at upkeep, it would fall short by up to two intervals.
      const readAt = Date.now();
      const expiresAt = readAt + (await redis.pttl(userStream));
      expect(expiresAt).toBeGreaterThanOrEqual(sentAt + RESUME_WINDOW_MS + 2 * 41_250 - 50);
    } finally {
      await redis.quit();
    }
    g1.ws.close(1000);
  }, 60_000);
});
