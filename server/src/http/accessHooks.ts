import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerContext } from '../ServerContext.ts';
import { expandScopes } from '../auth/Principal.ts';
import { ApiError, Errors } from './ApiError.ts';
import { isFirstParty, resolvePrincipal } from './auth.ts';
import { accessOf, bearerGranted, isApiRoute, type RouteAccess } from './routeAccess.ts';

/**
 * Holds every API route to its declaration in routeAccess.ts. Call before registering any route.
 *
 * - onRoute: an /api route without a declaration is a programming error and fails registration,
 *   so the server cannot start with a route nobody decided on.
 * - preParsing (before the body is read, so a refused upload is never buffered): a request whose
 *   credential resolves is checked against the route's kinds and scopes; a refusal is 403 with
 *   the documented body (20001 for a bot on a route for people, 50001 for another kind the route
 *   does not take, 50026 for a missing scope).
 *   A credential that does not resolve is left to the rate-limit hook, which answers 401 and
 *   counts it against the address.
 * - preValidation (after the rate-limit hook, before the body's schema): no credential, or one
 *   that does not resolve, on a route that needs one is 401.
 */
export function installRouteAccess(app: FastifyInstance, ctx: ServerContext): void {
  app.addHook('onRoute', (route) => {
    if (!isApiRoute(route.url)) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // Every method, HEAD included (it is its GET's declaration): nothing under /api goes unjudged.
    // Kept in the route's config, so a request reads its declaration without building a key.
    const access: Record<string, RouteAccess> = {};
    for (const method of methods) {
      const declared = accessOf(method, route.url);
      if (!declared) throw new Error(`${method} ${route.url} declares no access: add it to server/src/http/routeAccess.ts`);
      access[method] = declared;
    }
    route.config = { ...(route.config ?? {}), access } as typeof route.config;
  });

  app.addHook('preParsing', async (req) => {
    const url = req.routeOptions.url;
    if (url === undefined || !isApiRoute(url) || req.method === 'OPTIONS') return;
    const access = declarationOf(req);
    // Registration refuses undeclared routes; were one to get through, it would take nobody.
    if (!access) throw refused('any credential');
    if (access.open || req.headers.authorization === undefined) return;
    const principal = await resolvePrincipal(req, ctx.store);
    if (!principal) return;
    if (principal.kind === 'bot') {
      // The public API's answer to a bot on a route for people.
      if (!access.bot) throw new ApiError(403, 20001, 'Bots cannot use this endpoint');
      return;
    }
    if (await isFirstParty(ctx.store, principal.applicationId)) {
      if (!access.session) throw refused('the web app\'s session');
      return;
    }
    if (!access.bearer) throw refused('an OAuth2 token');
    if (!bearerGranted(access, expandScopes(principal.scopes))) throw Errors.missingScope(scopeNamed(access));
  });

  // After the rate-limit hook (registered first), so requests without a credential count too.
  app.addHook('preValidation', async (req) => {
    const url = req.routeOptions.url;
    if (url === undefined || !isApiRoute(url) || req.method === 'OPTIONS') return;
    const access = declarationOf(req);
    if (!access || access.open) return;
    if (req.headers.authorization === undefined || !(await resolvePrincipal(req, ctx.store))) throw Errors.unauthorized();
  });
}

function declarationOf(req: FastifyRequest): RouteAccess | undefined {
  return (req.routeOptions.config as { access?: Record<string, RouteAccess> } | undefined)?.access?.[req.method];
}

function refused(kind: string): ApiError {
  return new ApiError(403, 50001, `Missing Access: this route does not take ${kind}`);
}

/** The scope a refusal names: the route's first (a route that takes several names one). */
function scopeNamed(access: RouteAccess): string {
  return access.bearer?.[0] ?? '';
}
