import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PRE_APPROVAL_BUDGETS, PRE_APPROVAL_ROUTES, type PreApprovalClass, routeKey } from '../applications/approval.ts';
import type { ServerContext } from '../ServerContext.ts';
import { ApiError } from './ApiError.ts';
import { authenticate } from './auth.ts';

/**
 * The per-application budget of applications without production access (applications/approval.ts),
 * checked after the route's own per-caller budget. The headers then describe the budget that
 * applies: X-RateLimit-Limit/-Remaining/-Reset/-Bucket of the application's budget, and
 * `X-RateLimit-Budget: pre-approval` (or `production` once approved); a 429 from it carries
 * `X-RateLimit-Scope: shared`, since every user of the application draws on it.
 */
export function applicationBudgetHook(ctx: ServerContext) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const limiter = ctx.rateLimiter;
    if (!limiter) return;
    const cls = budgetClass(req);
    if (!cls) return;
    let applicationId: string;
    try {
      applicationId = (await authenticate(req, ctx.store)).applicationId;
    } catch {
      return; // the route answers 401 itself
    }
    const app = await ctx.store.applications.get(applicationId);
    if (!app || (app.approval ?? 'approved') === 'approved') {
      void reply.header('x-ratelimit-budget', 'production');
      return;
    }
    const budget = PRE_APPROVAL_BUDGETS[cls];
    const bucket = `pre-approval.${cls}`;
    const now = Date.now();
    const w = await limiter.store.hit(`${bucket}:app:${applicationId}`, budget.windowMs, now);
    const resetAfter = Math.max(0, (w.resetAt - now) / 1000);
    void reply.headers({
      'x-ratelimit-budget': 'pre-approval',
      'x-ratelimit-limit': String(budget.limit),
      'x-ratelimit-remaining': String(Math.max(0, budget.limit - w.count)),
      'x-ratelimit-reset': (w.resetAt / 1000).toFixed(3),
      'x-ratelimit-reset-after': resetAfter.toFixed(3),
      'x-ratelimit-bucket': createHash('sha256').update(bucket).digest('hex').slice(0, 16),
    });
    if (w.count > budget.limit) {
      const err = new ApiError(429, 0, 'You are being rate limited.', undefined, { 'retry-after': String(Math.ceil(resetAfter)), 'x-ratelimit-scope': 'shared' });
      err.retryAfter = resetAfter;
      throw err;
    }
  };
}

function budgetClass(req: FastifyRequest): PreApprovalClass | undefined {
  const declared = (req.routeOptions.config as { applicationBudget?: PreApprovalClass } | undefined)?.applicationBudget;
  if (declared) return declared;
  const pattern = req.routeOptions.url;
  return pattern ? PRE_APPROVAL_ROUTES[routeKey(req.method, pattern)] : undefined;
}
