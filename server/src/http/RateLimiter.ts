import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { principalOf } from './auth.ts';
import { ApiError } from './ApiError.ts';
import { type BucketRule, MemoryRateLimitStore, type RateLimitStore, type Window } from '../events/RateLimitStore.ts';

// The counters and BucketRule live in events/RateLimitStore.ts; routes keep importing them from here.
export { type BucketRule, MemoryRateLimitStore, type RateLimitStore, type Window };

/** Requests carrying a credential that does not resolve, per client address (guessing tokens). */
export const INVALID_CREDENTIAL_RULE: BucketRule = { bucket: 'auth.invalid', limit: 50, windowMs: 60_000, key: 'address' };

/** The budget of a route that declares none: per route, per caller. */
export function defaultRule(method: string, url: string): BucketRule {
  // HEAD is GET without a body: one budget for both, so alternating them buys nothing.
  return { bucket: `default:${method.replace(/\bHEAD\b/, 'GET').replace(/^GET,GET$/, 'GET')} ${url}`, limit: 60, windowMs: 10_000 };
}

/**
 * Fixed-window rate limits per (caller, bucket), reported with the public headers (protocols.md
 * 2.3): X-RateLimit-Limit, -Remaining, -Reset, -Reset-After, -Bucket, and on a 429 also
 * Retry-After and X-RateLimit-Scope.
 *
 * The caller is never the raw Authorization header (issue 9, fix 1 and 2): a header spelled ten
 * ways or a made-up token would each get a fresh budget. It is the principal that the credential
 * resolved to (`user:<id>`, `app:<id>` for a bot), which rateLimitHooks.ts resolves before
 * checking; without one, the client address. Budgets are set for games (a player clicking and
 * chatting); the stricter pre-approval budgets are applicationBudget.ts's, drawn from `store`.
 *
 * API for other budgets: `check(req, reply, rule)` counts one request against `rule` and throws
 * the 429; `hit(subject, rule)` counts against any subject (an application, a user) and returns
 * whether it is still within the limit, without headers; `store` is shared.
 */
export class RateLimiter {
  constructor(readonly store: RateLimitStore = new MemoryRateLimitStore()) {}

  async check(req: FastifyRequest, reply: FastifyReply, rule: BucketRule, now = Date.now()): Promise<void> {
    const subjects = [callerKey(req, rule)];
    if (rule.alsoKeyOnField) {
      const value = fieldOf(req.body, rule.alsoKeyOnField);
      if (value) subjects.push(`field:${rule.alsoKeyOnField}:${hashed(value.trim().toLowerCase())}`);
    }
    let worst: Window | undefined;
    for (const subject of subjects) {
      const w = await this.store.hit(`${rule.bucket}:${subject}`, rule.windowMs, now);
      if (!worst || w.count > worst.count) worst = w;
    }
    this.report(reply, rule, worst!, now);
  }

  /** Counts a hit of `rule` against `subject` (no headers); true while within the limit. */
  async hit(subject: string, rule: BucketRule, now = Date.now()): Promise<{ allowed: boolean; window: Window }> {
    const w = await this.store.hit(`${rule.bucket}:${subject}`, rule.windowMs, now);
    return { allowed: w.count <= rule.limit, window: w };
  }

  private report(reply: FastifyReply, rule: BucketRule, w: Window, now: number): void {
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

/** The client address: the socket's peer (no proxy header is trusted). */
export function addressKey(req: FastifyRequest): string {
  return `ip:${req.ip}`;
}

function callerKey(req: FastifyRequest, rule: BucketRule): string {
  if (rule.key === 'address') return addressKey(req);
  const p = principalOf(req);
  if (!p) return addressKey(req);
  return p.kind === 'bot' ? `app:${p.applicationId}` : `user:${p.userId}`;
}

function fieldOf(body: unknown, name: string): string | undefined {
  const v = body instanceof URLSearchParams ? body.get(name) : body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** Usernames are kept out of Redis and memory dumps in the clear. */
function hashed(value: string): string {
  return createHash('sha256').update(value).digest('base64url').slice(0, 22);
}
