import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { type Dispatch, userTopic } from '../src/events/EventBus.ts';
import { RedisEventBus } from '../src/events/RedisEventBus.ts';
import { resumeKeys } from '../src/events/resumeKeys.ts';

/**
 * RedisEventBus.publishMany on the real Redis: one dispatch to many user topics is one script
 * call (all recipients or none, if the node dies), each topic gets the dispatch once on every
 * node, and each topic whose user may resume gets its own stream entry.
 */
const REDIS_URL = process.env.SOCIAL_LAYER_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const PREFIX = `tbus:${randomBytes(4).toString('hex')}:`;
const buses: RedisEventBus[] = [];
const clients: Redis[] = [];

afterAll(async () => {
  for (const b of buses) await b.close();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  for (const c of clients) c.disconnect();
});

async function node(): Promise<RedisEventBus> {
  const bus = new RedisEventBus(REDIS_URL, PREFIX);
  await bus.ready();
  bus.streamUserTopics({ maxLen: 50, ttlMs: 60_000, maxAgeMs: 120_000 });
  buses.push(bus);
  return bus;
}

function collect(bus: RedisEventBus, topics: string[]): Map<string, Dispatch[]> {
  const got = new Map<string, Dispatch[]>(topics.map((t) => [t, []]));
  for (const t of topics) bus.subscribe(t, (d) => got.get(t)!.push(d));
  return got;
}

describe('RedisEventBus.publishMany', () => {
  it('delivers once per topic on every node, with a stream entry for each user who may resume', async () => {
    const a = await node();
    const b = await node();
    const app = randomBytes(4).toString('hex');
    const topics = ['1', '2', '3', '4'].map((u) => userTopic(app, u));
    const redis = new Redis(REDIS_URL);
    clients.push(redis);
    // Users 1 and 2 may resume a session (their marker exists); 3 and 4 may not.
    for (const t of topics.slice(0, 2)) await redis.set(resumeKeys.userMarker(PREFIX, t), '1', 'PX', 60_000);
    const onA = collect(a, topics.slice(0, 1));
    const onB = collect(b, topics);
    for (const t of topics) await b.whenSubscribed(t);
    await a.whenSubscribed(topics[0]!);

    a.publishMany(topics, { t: 'LOBBY_MESSAGE_CREATE', json: '{"content":"hi"}' });
    await expect.poll(() => [...onB.values()].every((d) => d.length === 1) && onA.get(topics[0]!)!.length === 1).toBe(true);
    // Nothing doubled by the node's own echo from Redis, or by a late second delivery.
    await new Promise((r) => setTimeout(r, 100));
    expect([...onB.values()].map((d) => d.length)).toEqual([1, 1, 1, 1]);
    expect(onA.get(topics[0]!)).toHaveLength(1);

    const streamIds = await Promise.all(topics.map(async (t) => (await redis.xrange(resumeKeys.userStream(PREFIX, t), '-', '+')).map(([id]) => id)));
    expect(streamIds[0]).toHaveLength(1);
    expect(streamIds[1]).toHaveLength(1);
    expect(streamIds.slice(2)).toEqual([[], []]);
    // Each delivery carries its own topic's entry ID (the local one too), none where none was written.
    expect(onB.get(topics[0]!)![0]).toEqual({ t: 'LOBBY_MESSAGE_CREATE', json: '{"content":"hi"}', id: streamIds[0]![0] });
    expect(onB.get(topics[1]!)![0]!.id).toBe(streamIds[1]![0]);
    expect(onA.get(topics[0]!)![0]!.id).toBe(streamIds[0]![0]);
    expect(onB.get(topics[2]!)![0]).toEqual({ t: 'LOBBY_MESSAGE_CREATE', json: '{"content":"hi"}' });
    // A stream the script created expires.
    expect(await redis.pttl(resumeKeys.userStream(PREFIX, topics[0]!))).toBeGreaterThan(0);
  });

  it('sends one script call for a whole lobby, split only past 256 topics', async () => {
    const a = await node();
    const app = randomBytes(4).toString('hex');
    const monitor = await new Redis(REDIS_URL).monitor();
    clients.push(monitor);
    const scripts: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (/^eval/i.test(args[0] ?? '') && args.some((x) => x.includes(`u:${app}:`))) scripts.push(args);
    });
    const lobby = Array.from({ length: 100 }, (_, i) => userTopic(app, String(i)));
    const guild = Array.from({ length: 300 }, (_, i) => userTopic(app, `g${i}`));
    a.publishMany(lobby, { t: 'LOBBY_MESSAGE_CREATE', json: '{}' });
    await expect.poll(() => scripts.length).toBe(1);
    // 100 topics: their markers and streams are the keys.
    expect(Number(scripts[0]![2])).toBe(200);
    a.publishMany(guild, { t: 'MESSAGE_CREATE', json: '{}' });
    await expect.poll(() => scripts.length).toBe(3);
    expect([Number(scripts[1]![2]), Number(scripts[2]![2])]).toEqual([512, 88]);
    await new Promise((r) => setTimeout(r, 100));
    expect(scripts).toHaveLength(3);
  });
});
