import { expandScopes, type Principal } from '../../auth/Principal.ts';
import { Errors } from '../ApiError.ts';
import { requireBearer } from '../auth.ts';
import { IdParam, NotFound, Type } from '../schemas/index.ts';

/**
 * Shared bits of the social routes. Scopes are checked after expansion: `sdk.social_layer` and
 * `sdk.social_layer_presence` stand for the scopes they expand to (spec, Authentication 2).
 */
export function requireUserScope(p: Principal, scope: string): Extract<Principal, { kind: 'bearer' }> {
  const bearer = requireBearer(p);
  if (!expandScopes(bearer.scopes).includes(scope)) throw Errors.missingScope(scope);
  return bearer;
}

/** `{userId}` in the path; anything that is not a snowflake cannot name a user (10013). */
export const UserParams = Type.Object({ userId: IdParam(NotFound.user, 'The other user\'s ID; anything else answers 10013') });

export function rateLimit(bucket: string, limit: number, windowMs = 10_000) {
  return { rateLimit: { bucket, limit, windowMs } };
}
