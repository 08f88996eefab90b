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
 * Fixed-window rate limits per (credential, bucket), reported with the public headers
 * (protocols.md 2.3): X-RateLimit-Limit, -Remaining, -Reset, -Reset-After, -Bucket, and on a 429
 * also Retry-After and X-RateLimit-Scope. The credential is hashed, never kept; anonymous callers
 * are keyed by address. Budgets are set for games (a player clicking and chatting), not for the
 * stricter pre-approval limits of the system we follow, which the spec leaves unstated.
 */
export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly sweep: NodeJS.Timeout;

  constructor() {
    this.sweep = setInterval(() => this.prune(Date.now()), 60_000);
    this.sweep.unref();
  }

  check(req: FastifyRequest, reply: FastifyReply, rule: BucketRule, now = Date.now()): void {
    const key = `${rule.bucket}:${callerKey(req)}`;
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + rule.windowMs };
      this.windows.set(key, w);
    }
    w.count++;
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

  close(): void {
    clearInterval(this.sweep);
    this.windows.clear();
  }

  private prune(now: number): void {
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
  }
}

function callerKey(req: FastifyRequest): string {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && auth.length > 0) return createHash('sha256').update(auth).digest('base64url').slice(0, 22);
  return `ip:${req.ip}`;
}
