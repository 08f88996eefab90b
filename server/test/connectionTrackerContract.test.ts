import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisConnectionTracker } from '../src/cluster/RedisConnectionTracker.ts';
import { type ConnectionTracker, MemoryConnectionTracker } from '../src/events/ConnectionTracker.ts';

const REDIS_URL = process.env.SOCIAL_LAYER_TEST_REDIS ?? 'redis://127.0.0.1:6379';

/**
 * One contract, every ConnectionTracker (DESIGN.md convention 5): the in-memory tracker of a
 * single node and the Redis tracker of a cluster must look the same to the services above them.
 */
const implementations: { name: string; make: (graceMs: number) => Promise<ConnectionTracker> }[] = [
  { name: 'memory', make: async (graceMs) => new MemoryConnectionTracker(graceMs) },
  {
    name: 'redis',
    make: (graceMs) => RedisConnectionTracker.start({ url: REDIS_URL, prefix: `sltest:${randomBytes(6).toString('hex')}:conn:`, graceMs, heartbeatMs: 200, ttlMs: 2000 }),
  },
];

const open: ConnectionTracker[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

/** Records what a tracker announces. */
function recorder(tracker: ConnectionTracker) {
  const events: string[] = [];
  tracker.onChange((app, user, connected) => events.push(`${app}:${user}:${connected ? 'on' : 'off'}`));
  return {
    events,
    /** Waits until `event` was announced (Redis answers asynchronously). */
    async until(event: string, timeoutMs = 15_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!events.includes(event)) {
        if (Date.now() > deadline) throw new Error(`no ${event} within ${timeoutMs} ms; saw ${JSON.stringify(events)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
}

/**
 * Flushes what the tracker has in flight: a throwaway user connects and leaves, and its two
 * announcements come after everything issued before them (one ordered Redis connection).
 */
async function settle(tracker: ConnectionTracker, rec: ReturnType<typeof recorder>): Promise<void> {
  const probe = `probe${randomBytes(4).toString('hex')}`;
  tracker.attach('9', probe);
  tracker.detach('9', probe, true);
  await rec.until(`9:${probe}:off`);
  rec.events.splice(rec.events.indexOf(`9:${probe}:on`), 1);
  rec.events.splice(rec.events.indexOf(`9:${probe}:off`), 1);
}

describe.each(implementations)('ConnectionTracker contract: $name', ({ make }) => {
  it('announces the first session and the end of the last one, once each', async () => {
    const t = await make(60_000);
    open.push(t);
    const rec = recorder(t);
    t.attach('1', 'u');
    // Counted at once: READY, built right after attach, already shows the user connected.
    expect(t.isConnected('1', 'u')).toBe(true);
    expect([...t.appsOf('u')]).toEqual(['1']);
    t.attach('1', 'u');
    await rec.until('1:u:on');
    t.detach('1', 'u', true);
    expect(t.isConnected('1', 'u')).toBe(true);
    t.detach('1', 'u', true);
    await rec.until('1:u:off');
    expect(t.isConnected('1', 'u')).toBe(false);
    expect(t.appsOf('u').size).toBe(0);
    await settle(t, rec);
    expect(rec.events).toEqual(['1:u:on', '1:u:off']);
  });

  it('keeps a dropped session through the grace period: a quick resume does not flicker', async () => {
    const t = await make(60_000);
    open.push(t);
    const rec = recorder(t);
    t.attach('1', 'v');
    await rec.until('1:v:on');
    t.detach('1', 'v', false);
    expect(t.isConnected('1', 'v')).toBe(true);
    t.attach('1', 'v');
    await settle(t, rec);
    expect(rec.events).toEqual(['1:v:on']);
    expect(t.isConnected('1', 'v')).toBe(true);
  });

  it('lets a dropped session go once its grace period ran out', async () => {
    const t = await make(150);
    open.push(t);
    const rec = recorder(t);
    t.attach('1', 'w');
    t.detach('1', 'w', false);
    expect(t.isConnected('1', 'w')).toBe(true);
    await rec.until('1:w:off');
    expect(t.isConnected('1', 'w')).toBe(false);
    expect(rec.events).toEqual(['1:w:on', '1:w:off']);
  });

  it('tracks each application on its own', async () => {
    const t = await make(60_000);
    open.push(t);
    const rec = recorder(t);
    t.attach('1', 'x');
    t.attach('2', 'x');
    expect([...t.appsOf('x')].sort()).toEqual(['1', '2']);
    t.detach('1', 'x', true);
    await rec.until('1:x:off');
    expect(t.isConnected('1', 'x')).toBe(false);
    expect(t.isConnected('2', 'x')).toBe(true);
    expect([...t.appsOf('x')]).toEqual(['2']);
  });

  it('announces nothing after close', async () => {
    const t = await make(60_000);
    const rec = recorder(t);
    t.attach('1', 'y');
    await rec.until('1:y:on');
    await t.close();
    t.detach('1', 'y', true);
    t.attach('1', 'z');
    await new Promise((r) => setTimeout(r, 100));
    expect(rec.events).toEqual(['1:y:on']);
  });
});
