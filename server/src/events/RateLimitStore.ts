/**
 * Rate-limit counters and the rule that names a budget: below every domain folder, since the
 * Gateway (session starts), guild requests and the HTTP layer (http/RateLimiter.ts) all count
 * against them. RedisRateLimitStore.ts shares the counters between the nodes of a cluster.
 */

/**
 * A route's budget, declared as `config: { rateLimit: BucketRule }`. Routes that declare none get
 * `defaultRule()` (http/rateLimitHooks.ts), so no route is unlimited.
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
