import { Redis } from 'ioredis';
import type { RateLimitStore } from './RateLimitStore.ts';

/**
 * Rate-limit windows in Redis, shared by every node: one atomic script counts the hit and starts
 * the window's expiry on the first one, so concurrent nodes never lose or double a count.
 */
const HIT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
return {count, ttl}
`;

export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis;

  constructor(url: string, private readonly prefix = 'sl:rl:') {
    this.redis = new Redis(url, { maxRetriesPerRequest: 3 });
  }

  async hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }> {
    const [count, ttl] = (await this.redis.eval(HIT, 1, this.prefix + key, String(windowMs))) as [number, number];
    return { count, resetAt: now + (ttl > 0 ? ttl : windowMs) };
  }

  async peek(key: string, now: number): Promise<{ count: number; resetAt: number }> {
    const [count, ttl] = (await this.redis.multi().get(this.prefix + key).pttl(this.prefix + key).exec())!.map(([, v]) => v) as [string | null, number];
    return count === null || ttl <= 0 ? { count: 0, resetAt: now } : { count: Number(count), resetAt: now + ttl };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => {});
  }
}
