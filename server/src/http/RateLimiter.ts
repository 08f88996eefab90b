import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './ApiError.ts';

export interface BucketRule {
  /** Opaque name sent as X-RateLimit-Bucket; routes sharing a name share a budget. */
  bucket: string;
  limit: number;
  windowMs: number;
}

interface Window {
  count: number;
  resetAt: number;
}

/**
 * Where the counters live: in this process (one node), or in Redis so every node of a
 * scale-out deployment draws on one budget per caller.
 */
export interface RateLimitStore {
  /** Counts one hit in the window of `key`; returns the count so far and when the window ends (ms). */
  hit(key: string, windowMs: number, now: number): Promise<Window>;
  close(): Promise<void>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, Window>();
  private readonly sweep: NodeJS.Timeout;

  constructor() {
    this.sweep = setInterval(() => {
      const now = Date.now();
      for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
    }, 60_000);
    this.sweep.unref();
  }

  async hit(key: string, windowMs: number, now: number): Promise<Window> {
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return { ...w };
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    this.windows.clear();
  }
}

/**
 * Fixed-window rate limits per (credential, bucket), reported with the public headers
 * (protocols.md 2.3): X-RateLimit-Limit, -Remaining, -Reset, -Reset-After, -Bucket, and on a 429
 * also Retry-After and X-RateLimit-Scope. The credential is hashed, never kept; anonymous callers
 * are keyed by address. Budgets are set for games (a player clicking and chatting), not for the
 * stricter pre-approval limits of the system we follow, which the spec leaves unstated.
 */
export class RateLimiter {
  constructor(readonly store: RateLimitStore = new MemoryRateLimitStore()) {}

  async check(req: FastifyRequest, reply: FastifyReply, rule: BucketRule, now = Date.now()): Promise<void> {
    const key = `${rule.bucket}:${callerKey(req)}`;
    const w = await this.store.hit(key, rule.windowMs, now);
    const resetAfter = Math.max(0, (w.resetAt - now) / 1000);
    void reply.headers({
      'x-ratelimit-limit': String(rule.limit),
      'x-ratelimit-remaining': String(Math.max(0, rule.limit - w.count)),
      'x-ratelimit-reset': (w.resetAt / 1000).toFixed(3),
      'x-ratelimit-reset-after': resetAfter.toFixed(3),
      'x-ratelimit-bucket': createHash('sha256').update(rule.bucket).digest('hex').slice(0, 16),
    });
    if (w.count > rule.limit) {
      const err = new ApiError(429, 0, 'You are being rate limited.', undefined, {
        'retry-after': String(Math.ceil(resetAfter)),
        'x-ratelimit-scope': 'user',
      });
      err.retryAfter = resetAfter;
      throw err;
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

function callerKey(req: FastifyRequest): string {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && auth.length > 0) return createHash('sha256').update(auth).digest('base64url').slice(0, 22);
  return `ip:${req.ip}`;
}
