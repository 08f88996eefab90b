// Schedulers run once across nodes (issue 18): the idle-lobby sweep of three real nodes on one
// PostgreSQL schema and one Redis prefix, all sweeping at once, deletes each idle lobby once and
// sends its LOBBY_DELETE once; and the lock behind it (cluster/runOnce.ts) holds one job per name
// and schema at a time. Subscription renewals and webhook delivery already claim their rows
// (advisory lock per subscription, SKIP LOCKED leases per application): commerceStateMachine's
// "two schedulers (two nodes)" and webhookCrash's "two nodes ... SIGKILL" tests prove those.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { runOnce } from '../src/cluster/runOnce.ts';
import { userTopic } from '../src/events/EventBus.ts';
import { RedisEventBus } from '../src/events/RedisEventBus.ts';
import { openDatabase, type OpenDatabase } from '../src/storage/database.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';

const REDIS_URL = process.env.SOCIAL_LAYER_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const postgres = () => databaseConfigs().find((c) => c.name === 'postgres')!.config();
const servers: TestServer[] = [];
const opened: OpenDatabase[] = [];

afterAll(async () => {
  for (const s of servers) await s.close();
  for (const d of opened) await d.close();
  cleanupTempDirs();
  await dropTestSchemas();
});

describe('schedulers once across nodes (PostgreSQL + Redis)', () => {
  it('three nodes sweeping idle lobbies at once delete each lobby once and send its LOBBY_DELETE once', async () => {
    const database = postgres();
    const redisPrefix = `t_${randomBytes(4).toString('hex')}:`;
    // The sweep's own interval is pushed out of the way: the test calls it, on every node at once.
    const options = { database, redisUrl: REDIS_URL, redisPrefix, idleSweepIntervalMs: 3_600_000 };
    servers.push(await startTestServer(options));
    servers.push(...(await Promise.all([startTestServer(options), startTestServer(options)])));
    const [a] = servers;
    const owner = await a!.guest('Owner');
    const lobbyIds: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await a!.req('PUT', '/lobbies', { token: owner.token, body: { secret: `idle-${i}-${redisPrefix}`, idle_timeout_seconds: 5 } });
      expect(r.status).toBe(200);
      lobbyIds.push(r.body.id);
    }
    // Nobody ever connected: idle since creation; move that into the past instead of waiting.
    for (const id of lobbyIds) await a!.server.store.lobbies.setIdleSince(id, Date.now() - 60_000);

    // A listener on the cluster's bus, as a fourth node would be, counts the owner's LOBBY_DELETEs.
    const listener = new RedisEventBus(REDIS_URL, redisPrefix);
    await listener.ready();
    const deletes: string[] = [];
    const topic = userTopic(a!.app.id, owner.userId);
    listener.subscribe(topic, (d) => {
      if (d.t === 'LOBBY_DELETE') deletes.push(JSON.parse(d.json).id);
    });
    await listener.whenSubscribed(topic);
    try {
      // Several rounds at once on every node: whoever holds the lock sweeps, the rest skip or find nothing.
      let deleted = 0;
      for (let round = 0; round < 3; round++) {
        const counts = await Promise.all(servers.map((s) => s.server.sweepIdleLobbies()));
        deleted += counts.reduce((x, y) => x + y, 0);
      }
      expect(deleted).toBe(lobbyIds.length);
      for (const id of lobbyIds) expect(await a!.server.store.lobbies.get(id)).toBeFalsy();
      // Bus delivery is asynchronous: wait for all six, then a moment for any duplicate.
      const until = Date.now() + 10_000;
      while (deletes.length < lobbyIds.length && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 500));
      expect(deletes.sort()).toEqual([...lobbyIds].sort());
    } finally {
      await listener.close();
    }
  });

  it('runOnce: a second node skips while one holds the job, runs after it; other jobs and other schemas are not held', async () => {
    const config = postgres();
    const nodeA = await openDatabase(config);
    const nodeB = await openDatabase(config);
    const otherSchema = await openDatabase(postgres());
    opened.push(nodeA, nodeB, otherSchema);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const first = runOnce(nodeA, 'job', async () => {
      entered();
      await held;
      return 'a';
    });
    await inside;
    expect(await runOnce(nodeB, 'job', async () => 'b')).toEqual({ ran: false });
    expect(await runOnce(nodeB, 'another-job', async () => 'b2')).toEqual({ ran: true, value: 'b2' });
    expect(await runOnce(otherSchema, 'job', async () => 'c')).toEqual({ ran: true, value: 'c' });
    release();
    expect(await first).toEqual({ ran: true, value: 'a' });
    // The lock went with the transaction.
    expect(await runOnce(nodeB, 'job', async () => 'b3')).toEqual({ ran: true, value: 'b3' });
  });

  it('runOnce on SQLite runs the job (one node, one writer)', async () => {
    const sqlite = await openDatabase(databaseConfigs().find((c) => c.name === 'sqlite')!.config());
    opened.push(sqlite);
    expect(await runOnce(sqlite, 'job', async () => 42)).toEqual({ ran: true, value: 42 });
  });
});
