import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { principalOf } from './auth.ts';
import { ApiError } from './ApiError.ts';

/**
 * A route's budget, declared as `config: { rateLimit: BucketRule }`. Routes that declare none get
 * `defaultRule()` (rateLimitHooks.ts), so no route is unlimited.
 */
export interface BucketRule {
  /** Opaque name sent as X-RateLimit-Bucket; routes sharing a name share a budget. */
  bucket: string;
  limit: number;
  windowMs: number;
  /**
   * Whose budget it is. `principal` (the default): the user or application that the request's
   * credential resolved to, or the client address when it carries none. `address`: always the
   * client address, the Authorization header ignored: for routes that do not authenticate by it
   * (sign-in, sign-up, provisional tokens, the OAuth2 token endpoint).
   */
  key?: 'principal' | 'address';
  /**
   * A body field whose value also keys this budget (sign-in: the username), so one account cannot
   * be guessed at from many addresses either. Both budgets must allow the request.
   */
  alsoKeyOnField?: string;
}

/** Requests carrying a credential that does not resolve, per client address (guessing tokens). */
export const INVALID_CREDENTIAL_RULE: BucketRule = { bucket: 'auth.invalid', limit: 50, windowMs: 60_000, key: 'address' };

/** The budget of a route that declares none: per route, per caller. */
export function defaultRule(method: string, url: string): BucketRule {
  // HEAD is GET without a body: one budget for both, so alternating them buys nothing.
  return { bucket: `default:${method.replace(/\bHEAD\b/, 'GET').replace(/^GET,GET$/, 'GET')} ${url}`, limit: 60, windowMs: 10_000 };
}

export interface Window {
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
  /** The window of `key` without counting (count 0 when none is open). */
  peek(key: string, now: number): Promise<Window>;
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

  async peek(key: string, now: number): Promise<Window> {
    const w = this.windows.get(key);
    return w && w.resetAt > now ? { ...w } : { count: 0, resetAt: now };
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    this.windows.clear();
  }
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
