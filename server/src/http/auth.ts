import type { FastifyRequest } from 'fastify';
import { parseAuthorization } from '../auth/authorizationHeader.ts';
import type { Principal } from '../auth/Principal.ts';
import type { Store } from '../storage/Store.ts';
import { ApiError, Errors } from './ApiError.ts';

/**
 * What each request's credential resolved to, once: the rate-limit hook resolves it before the
 * route runs (the budget is the principal's), and `authenticate` in the route reuses it.
 * `null` means the request carried a credential that did not resolve.
 */
const resolved = new WeakMap<FastifyRequest, Principal | null>();

/** Resolves the request's credential (cached per request); undefined when it has none or it does not resolve. */
export async function resolvePrincipal(req: FastifyRequest, store: Store): Promise<Principal | undefined> {
  if (resolved.has(req)) return resolved.get(req) ?? undefined;
  const principal = await lookup(req.headers.authorization, store);
  resolved.set(req, principal ?? null);
  return principal;
}

/** The principal already resolved for this request, if any (no lookup). */
export function principalOf(req: FastifyRequest): Principal | undefined {
  return resolved.get(req) ?? undefined;
}

/**
 * The route's authentication. Unknown, expired and malformed credentials all get the same 401, so
 * a caller learns nothing about which it was.
 */
export async function authenticate(req: FastifyRequest, store: Store): Promise<Principal> {
  const principal = await resolvePrincipal(req, store);
  if (!principal) throw Errors.unauthorized();
  return principal;
}

async function lookup(header: string | undefined, store: Store): Promise<Principal | undefined> {
  const credential = parseAuthorization(header);
  if (!credential) return undefined;
  if (credential.scheme === 'bot') {
    const app = await store.applications.findByBotToken(credential.token);
    return app ? { kind: 'bot', applicationId: app.id, botUserId: app.bot_user_id } : undefined;
  }
  const grant = await store.tokens.resolve(credential.token);
  if (grant && credential.scheme === 'session' && !(await isFirstParty(store, grant.applicationId))) return undefined;
  return grant ? { kind: 'bearer', userId: grant.userId, applicationId: grant.applicationId, scopes: grant.scopes } : undefined;
}

const firstPartyApps = new WeakMap<Store, Map<string, boolean>>();

/**
 * Whether `applicationId` is the platform's own client (the web app). Remembered per store: an
 * application's first-party mark is set when it is created and never changes.
 */
export async function isFirstParty(store: Store, applicationId: string): Promise<boolean> {
  let known = firstPartyApps.get(store);
  if (!known) firstPartyApps.set(store, (known = new Map()));
  const cached = known.get(applicationId);
  if (cached !== undefined) return cached;
  const app = await store.applications.get(applicationId);
  if (!app) return false;
  known.set(applicationId, app.first_party === 1);
  return app.first_party === 1;
}

export function requireBearer(p: Principal, scope?: string): Extract<Principal, { kind: 'bearer' }> {
  if (p.kind !== 'bearer') throw new ApiError(403, 50013, 'This route needs a user (Bearer) token');
  if (scope && !p.scopes.includes(scope)) throw Errors.missingScope(scope);
  return p;
}

export function requireBot(p: Principal): Extract<Principal, { kind: 'bot' }> {
  if (p.kind !== 'bot') throw new ApiError(403, 50013, 'This route needs the application\'s Bot token');
  return p;
}
