import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/Principal.ts';
import type { Store } from '../storage/Store.ts';
import { ApiError, Errors } from './ApiError.ts';

/**
 * Resolves `Authorization: Bearer <token>` or `Bot <token>` (protocols.md 2.1). Unknown, expired
 * and malformed credentials all get the same 401, so a caller learns nothing about which it was.
 */
export async function authenticate(req: FastifyRequest, store: Store): Promise<Principal> {
  const header = req.headers.authorization;
  if (typeof header !== 'string') throw Errors.unauthorized();
  // No scheme: the platform's own client (the web app) sends its session token bare, as the
  // public platform's client does. Only tokens of the first-party application resolve this way.
  const match = /^(Bearer|Bot)\s+(\S{1,512})$/i.exec(header.trim()) ?? /^()([A-Za-z0-9_-]{43})$/.exec(header.trim());
  if (!match) throw Errors.unauthorized();
  const [, scheme, token] = match as unknown as [string, string, string];
  if (scheme.toLowerCase() === 'bot') {
    const app = await store.applications.findByBotToken(token);
    if (!app) throw Errors.unauthorized();
    return { kind: 'bot', applicationId: app.id, botUserId: app.bot_user_id };
  }
  const grant = await store.tokens.resolve(token);
  if (!grant) throw Errors.unauthorized();
  if (scheme === '' && (await store.applications.get(grant.applicationId))?.first_party !== 1) throw Errors.unauthorized();
  return { kind: 'bearer', userId: grant.userId, applicationId: grant.applicationId, scopes: grant.scopes };
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
