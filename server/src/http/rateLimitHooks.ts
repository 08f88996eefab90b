import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerContext } from '../ServerContext.ts';
import { Errors } from './ApiError.ts';
import { resolvePrincipal } from './auth.ts';
import { type BucketRule, defaultRule, INVALID_CREDENTIAL_RULE } from './RateLimiter.ts';

/**
 * Every route has a budget (issue 9, fix 9), and every budget is keyed on who is asking, never on
 * what the Authorization header says (fix 1, 2). Call before registering any route.
 *
 * - onRoute: a route that declares no `config.rateLimit` gets `defaultRule` (per route, per
 *   caller), plugins' routes (static files, the API reference) included.
 * - preValidation (after the body is parsed, before the schema check, so malformed requests count
 *   too): on /api routes whose budget is the principal's, a request with an Authorization header
 *   has it resolved first; one that does not resolve answers 401 and counts against its client
 *   address (`auth.invalid`, then 429), so guessing tokens is limited as well. Then the route's
 *   budget is checked. Unmatched URLs (404) draw on one default budget per caller.
 */
export function installRateLimits(app: FastifyInstance, ctx: ServerContext): void {
  const routes: RouteBudget[] = [];
  registry.set(app, routes);
  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as { rateLimit?: BucketRule };
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const rateLimit = config.rateLimit ?? defaultRule(methods.join(','), route.url);
    if (!config.rateLimit) route.config = { ...config, rateLimit } as typeof route.config;
    for (const method of methods) routes.push({ method, url: route.url, rateLimit });
  });

  app.addHook('preValidation', async (req, reply) => {
    const limiter = ctx.rateLimiter;
    if (!limiter) return;
    const rule = ruleOf(req);
    if (rule.key !== 'address' && req.headers.authorization !== undefined && req.url.startsWith('/api/')) {
      if (!(await resolvePrincipal(req, ctx.store))) {
        await limiter.check(req, reply, INVALID_CREDENTIAL_RULE);
        throw Errors.unauthorized();
      }
    }
    await limiter.check(req, reply, rule);
  });
}

export interface RouteBudget {
  method: string;
  url: string;
  rateLimit: BucketRule;
}

const registry = new WeakMap<FastifyInstance, RouteBudget[]>();

/** Every route registered on `app` since installRateLimits, with its budget (for tests and diagnostics). */
export function routeBudgets(app: FastifyInstance): readonly RouteBudget[] {
  return registry.get(app) ?? [];
}

function ruleOf(req: FastifyRequest): BucketRule {
  return (req.routeOptions.config as { rateLimit?: BucketRule } | undefined)?.rateLimit ?? defaultRule('ANY', 'unmatched');
}
