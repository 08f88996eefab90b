import type { FastifyRequest } from 'fastify';
import { isSnowflake } from '@social-layer/protocol';
import { expandScopes, type Principal } from '../../auth/Principal.ts';
import { Errors } from '../ApiError.ts';
import { requireBearer } from '../auth.ts';

/**
 * Shared bits of the social routes. Scopes are checked after expansion: `sdk.social_layer` and
 * `sdk.social_layer_presence` stand for the scopes they expand to (spec, Authentication 2).
 */
export function requireUserScope(p: Principal, scope: string): Extract<Principal, { kind: 'bearer' }> {
  const bearer = requireBearer(p);
  if (!expandScopes(bearer.scopes).includes(scope)) throw Errors.missingScope(scope);
  return bearer;
}

/** A user ID from the path; anything that is not a snowflake cannot name a user (10013). */
export function pathUserId(req: FastifyRequest, param = 'userId'): string {
  const id = (req.params as Record<string, string>)[param];
  if (!isSnowflake(id)) throw Errors.unknownUser();
  return id;
}

/** A query-string integer, or undefined when absent (the validator reports bad values). */
export function queryInt(req: FastifyRequest, name: string): number | string | undefined {
  const raw = (req.query as Record<string, string | undefined>)[name];
  if (raw === undefined) return undefined;
  return /^-?\d+$/.test(raw) ? Number(raw) : raw;
}

export function queryBool(req: FastifyRequest, name: string): boolean {
  const raw = (req.query as Record<string, string | undefined>)[name];
  return raw === 'true' || raw === 'True' || raw === '1';
}

export function rateLimit(bucket: string, limit: number, windowMs = 10_000) {
  return { config: { rateLimit: { bucket, limit, windowMs } } };
}
