import type { BucketRule, RateLimitStore } from '../http/RateLimiter.ts';

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
export class SessionStartLimit {
  static readonly DAILY: BucketRule = { bucket: 'gateway.identify.daily', limit: 1000, windowMs: 24 * 60 * 60 * 1000 };
  /** Large bots get 16 on the public platform; one budget for all here, so a sharded bot can start quickly. */
  static readonly CONCURRENCY: BucketRule = { bucket: 'gateway.identify.concurrency', limit: 16, windowMs: 5_000 };

  constructor(private readonly store: RateLimitStore) {}

  /** Counts one Identify; false when it is over a budget (then the session must not start). */
  async start(identity: { kind: 'bearer' | 'bot'; applicationId: string; userId: string }, now = Date.now()): Promise<boolean> {
    const subject = subjectOf(identity);
    const daily = await this.store.hit(key(SessionStartLimit.DAILY, subject), SessionStartLimit.DAILY.windowMs, now);
    if (daily.count > SessionStartLimit.DAILY.limit) return false;
    if (identity.kind !== 'bot') return true;
    const burst = await this.store.hit(key(SessionStartLimit.CONCURRENCY, subject), SessionStartLimit.CONCURRENCY.windowMs, now);
    return burst.count <= SessionStartLimit.CONCURRENCY.limit;
  }

  /** The application's bot budget, as GET /gateway/bot reports it. */
  async info(applicationId: string, now = Date.now()): Promise<SessionStartLimitInfo> {
    const w = await this.store.peek(key(SessionStartLimit.DAILY, `app:${applicationId}`), now);
    return {
      total: SessionStartLimit.DAILY.limit,
      remaining: Math.max(0, SessionStartLimit.DAILY.limit - w.count),
      reset_after: w.count === 0 ? SessionStartLimit.DAILY.windowMs : Math.max(0, w.resetAt - now),
      max_concurrency: SessionStartLimit.CONCURRENCY.limit,
    };
  }
}

function subjectOf(identity: { kind: 'bearer' | 'bot'; applicationId: string; userId: string }): string {
  return identity.kind === 'bot' ? `app:${identity.applicationId}` : `user:${identity.userId}`;
}

function key(rule: BucketRule, subject: string): string {
  return `${rule.bucket}:${subject}`;
}
