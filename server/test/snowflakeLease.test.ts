import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { SnowflakeLease } from '../src/cluster/SnowflakeLease.ts';
import { createLogger } from '../src/log/Logger.ts';
import { SnowflakeGenerator } from '../src/storage/Snowflake.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';

const REDIS_URL = process.env.SOCIAL_LAYER_TEST_REDIS ?? 'redis://127.0.0.1:6379';

afterAll(async () => {
  cleanupTempDirs();
  await dropTestSchemas();
});

/** The worker and process bits of a Snowflake (bits 12-21). */
const nodeOf = (id: string) => Number((BigInt(id) >> 12n) & 0x3ffn);

/**
 * Each node's Snowflake bits (issue 18, scale-out): leased from Redis, so two live nodes never
 * mint the same ID. Drawn at random, with the pid's low bits, nodes in containers (pid 1 each)
 * shared them about one time in eleven for three nodes, and then minted equal IDs in one
 * millisecond.
 */
describe('Snowflake node leases on Redis', () => {
  const log = createLogger({ level: 'silent' });

  it('gives live nodes different numbers, takes a released one again, and replaces one that lapsed', async () => {
    const prefix = `sltest:${randomBytes(6).toString('hex')}:`;
    const leases = await Promise.all(Array.from({ length: 8 }, () => SnowflakeLease.acquire({ url: REDIS_URL, prefix, log })));
    const numbers = leases.map((l) => l.node);
    expect(new Set(numbers).size).toBe(8);
    for (const n of numbers) expect(n).toBeGreaterThanOrEqual(0), expect(n).toBeLessThan(1024);
    // Released on close: the counter comes round to it, and it is free.
    const freed = leases.pop()!;
    await freed.close();
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.exists(`${prefix}snowflake:${freed.node}`)).toBe(0);
      // Every number but one held elsewhere: the next lease finds that one.
      const held = numbers.slice(0, -1);
      const pipe = redis.pipeline();
      for (let n = 0; n < 1024; n++) if (n !== freed.node && !held.includes(n)) pipe.set(`${prefix}snowflake:${n}`, 'someone', 'PX', 60_000);
      await pipe.exec();
      const again = await SnowflakeLease.acquire({ url: REDIS_URL, prefix, log });
      expect(again.node).toBe(freed.node);
      // And with none left, a node refuses to start rather than share one.
      await expect(SnowflakeLease.acquire({ url: REDIS_URL, prefix, log })).rejects.toThrow(/all 1024 Snowflake node numbers/);
      leases.push(again);
      // A lease that lapsed (its node stalled past the TTL) and was taken: the next refresh takes another.
      const changes: number[] = [];
      const short = await SnowflakeLease.acquire({ url: REDIS_URL, prefix: `${prefix}short:`, ttlMs: 150, log, onChange: (n) => changes.push(n) });
      const first = short.node;
      await redis.set(`${prefix}short:snowflake:${first}`, 'another node');
      for (let i = 0; i < 40 && changes.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(changes).toHaveLength(1);
      expect(short.node).not.toBe(first);
      expect(changes[0]).toBe(short.node);
      await short.close();
      // Close releases only its own lease: the other node's hold on the lost number stays.
      expect(await redis.get(`${prefix}short:snowflake:${first}`)).toBe('another node');
    } finally {
      for (const l of leases) await l.close();
      redis.disconnect();
    }
  });

  it('mints different IDs in the same millisecond on two nodes of one cluster, whatever their pids', async () => {
    const database = databaseConfigs().find((c) => c.name === 'postgres')!.config();
    const options = { database, redisUrl: REDIS_URL, redisPrefix: `sltest:${randomBytes(6).toString('hex')}:` };
    const nodes: TestServer[] = [];
    try {
      for (let i = 0; i < 2; i++) nodes.push(await startTestServer(options));
      const [a, b] = nodes.map((n) => n.server.store.ids) as [SnowflakeGenerator, SnowflakeGenerator];
      expect(a.node).not.toBe(b.node);
      // Each mints with the number it holds in Redis (both nodes share this process's pid here).
      const redis = new Redis(REDIS_URL);
      try {
        const held = await Promise.all([a.node, b.node].map((n) => redis.exists(`${options.redisPrefix}snowflake:${n}`)));
        expect(held).toEqual([1, 1]);
      } finally {
        redis.disconnect();
      }
      const at = Date.now() + 10_000;
      const ids = [a.next(at), b.next(at)];
      expect(ids[0]).not.toBe(ids[1]);
      expect(ids.map(nodeOf)).toEqual([a.node, b.node]);
      // And the rows they write carry them: a guest made on each node.
      const guests = [await nodes[0]!.guest('On A'), await nodes[1]!.guest('On B')];
      expect(guests.map((g) => nodeOf(g.userId))).toEqual([a.node, b.node]);
    } finally {
      for (const n of nodes) await n.close();
    }
  });

  it('keeps the node bits it is given, and refuses numbers a Snowflake cannot hold', () => {
    const ids = new SnowflakeGenerator();
    ids.setNode(1023);
    expect(nodeOf(ids.next())).toBe(1023);
    ids.setNode(0);
    expect(nodeOf(ids.next())).toBe(0);
    expect(() => ids.setNode(1024)).toThrow(RangeError);
    expect(() => ids.setNode(-1)).toThrow(RangeError);
    expect(() => ids.setNode(1.5)).toThrow(RangeError);
  });
});
