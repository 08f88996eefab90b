import type { FastifyRequest } from 'fastify';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { Type } from 'typebox';
import type { ServerContext } from '../../ServerContext.ts';
import { ApiError } from '../ApiError.ts';
import { authenticate } from '../auth.ts';
import { GuildErrors } from '../../guilds/guildErrors.ts';

/** IDs in bodies: snowflakes as strings (they exceed 2^53). Path IDs stay plain strings, so a bad one is the resource's 404. */
export const Snowflake = Type.String({ pattern: '^[0-9]{1,20}$' });
/** A 64-bit permission bitfield as a decimal string. */
export const PermissionString = Type.String({ pattern: '^[0-9]{1,20}$' });

const LEAF_CODES: Record<string, string> = {
  required: 'BASE_TYPE_REQUIRED',
  type: 'BASE_TYPE_STRING',
  minLength: 'BASE_TYPE_BAD_LENGTH',
  maxLength: 'BASE_TYPE_BAD_LENGTH',
  minItems: 'BASE_TYPE_BAD_LENGTH',
  maxItems: 'BASE_TYPE_BAD_LENGTH',
  minimum: 'NUMBER_TYPE_MIN',
  maximum: 'NUMBER_TYPE_MAX',
  pattern: 'STRING_TYPE_REGEX',
  enum: 'BASE_TYPE_CHOICES',
  const: 'BASE_TYPE_CHOICES',
};

/**
 * Schema failures as the public 50035 with the nested `errors` tree (protocols.md 2.2), raised as
 * our ApiError so the app's error handler sends it as is. Used as the routes' schemaErrorFormatter
 * until the app-wide mapping (issue 9) covers every route the same way.
 */
export function schemaErrors(errors: FastifySchemaValidationError[], _dataVar: string): Error {
  const tree: Record<string, any> = {};
  for (const e of errors) {
    const path = (e.instancePath ?? '').split('/').filter(Boolean);
    const missing = (e.params as { missingProperty?: string; requiredProperties?: string[] } | undefined)?.missingProperty;
    if (e.keyword === 'required' && missing) path.push(missing);
    let node = tree;
    for (const key of path) node = node[key] ??= {};
    const type = (e.params as { type?: string } | undefined)?.type;
    let code = LEAF_CODES[e.keyword] ?? 'BASE_TYPE_INVALID';
    if (e.keyword === 'type' && (type === 'integer' || type === 'number')) code = 'NUMBER_TYPE_COERCE';
    if (e.keyword === 'type' && type === 'boolean') code = 'BASE_TYPE_BOOLEAN';
    if (e.keyword === 'type' && type === 'array') code = 'BASE_TYPE_ARRAY';
    if (e.keyword === 'type' && type === 'object') code = 'DICT_TYPE_CONVERT';
    (node._errors ??= []).push({ code, message: e.message ?? 'Invalid value' });
  }
  return new ApiError(400, 50035, 'Invalid Form Body', tree);
}

/**
 * Who acts: a bot (its bot user) or a user through a Bearer token holding the `guilds` scope.
 * Guild routes act as that user, within that user's guild permissions.
 */
export async function guildCaller(req: FastifyRequest, ctx: ServerContext): Promise<{ userId: string; bot: boolean }> {
  const p = await authenticate(req, ctx.store);
  if (p.kind === 'bot') return { userId: p.botUserId, bot: true };
  if (!p.scopes.includes('guilds')) throw new ApiError(403, 50001, 'Missing Access: the token lacks the guilds scope');
  return { userId: p.userId, bot: false };
}

export { GuildErrors };

/** Rate budgets per caller for the guild routes. */
export const GUILD_READ = { bucket: 'guilds.read', limit: 50, windowMs: 1_000 };
export const GUILD_WRITE = { bucket: 'guilds.write', limit: 10, windowMs: 1_000 };
export const MEMBER_READ = { bucket: 'guilds.members.read', limit: 10, windowMs: 1_000 };
