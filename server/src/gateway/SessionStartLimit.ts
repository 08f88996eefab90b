import type { BucketRule, RateLimitStore } from '../events/RateLimitStore.ts';

/** What GET /gateway/bot reports (protocols.md 1.1), in the public field names. */
export interface SessionStartLimitInfo {
  total: number;
  remaining: number;
  reset_after: number;
  max_concurrency: number;
}

/**
 * Identify budgets (protocols.md 1.14; issue 9, fix 8). Every Identify that starts a session
 * counts (Resumes do not): 1000 per 24 h per application for bot tokens and per user for bearer
 * tokens, plus `max_concurrency` Identifies per 5 s per application. Over either, the socket gets
 * op 9 (Invalid Session, not resumable) and closes with 4008. The counters live in the rate-limit
 * store, so on a scale-out deployment (Redis) every node draws on the same budget.
 */
export interface SessionStartLimitOptions {
  /** Identifies per 24 h per application (bots) and per user (bearer). Default 1000. */
  total?: number;
  /** Bot Identifies per 5 s per application. Default 16 (what large bots get on the public platform), so a sharded bot starts quickly. */
  maxConcurrency?: number;
}

export class SessionStartLimit {
  private readonly daily: BucketRule;
  private readonly concurrency: BucketRule;

  constructor(
    private readonly store: RateLimitStore,
    options: SessionStartLimitOptions = {},
  ) {
    this.daily = { bucket: 'gateway.identify.daily', limit: options.total ?? 1000, windowMs: 24 * 60 * 60 * 1000 };
    this.concurrency = { bucket: 'gateway.identify.concurrency', limit: options.maxConcurrency ?? 16, windowMs: 5_000 };
  }

  /** Counts one Identify; false when it is over a budget (then the session must not start). */
  async start(identity: { kind: 'bearer' | 'bot'; applicationId: string; userId: string }, now = Date.now()): Promise<boolean> {
    const subject = subjectOf(identity);
    const daily = await this.store.hit(key(this.daily, subject), this.daily.windowMs, now);
    if (daily.count > this.daily.limit) return false;
    if (identity.kind !== 'bot') return true;
    const burst = await this.store.hit(key(this.concurrency, subject), this.concurrency.windowMs, now);
    return burst.count <= this.concurrency.limit;
  }

  /** The application's bot budget, as GET /gateway/bot reports it. */
  async info(applicationId: string, now = Date.now()): Promise<SessionStartLimitInfo> {
    const w = await this.store.peek(key(this.daily, `app:${applicationId}`), now);
    return {
      total: this.daily.limit,
      remaining: Math.max(0, this.daily.limit - w.count),
      reset_after: w.count === 0 ? this.daily.windowMs : Math.max(0, w.resetAt - now),
      max_concurrency: this.concurrency.limit,
    };
  }
}

function subjectOf(identity: { kind: 'bearer' | 'bot'; applicationId: string; userId: string }): string {
  return identity.kind === 'bot' ? `app:${identity.applicationId}` : `user:${identity.userId}`;
}

function key(rule: BucketRule, subject: string): string {
  return `${rule.bucket}:${subject}`;
}
