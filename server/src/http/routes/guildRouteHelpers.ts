import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { SNOWFLAKE_PATTERN } from '../schemas/index.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { authenticate } from '../auth.ts';
import { GuildErrors } from '../../guilds/guildErrors.ts';

/** IDs in bodies: snowflakes as strings (they exceed 2^53). Path IDs stay plain strings, so a bad one is the resource's 404. */
export const Snowflake = Type.String({ pattern: SNOWFLAKE_PATTERN });
/** A 64-bit permission bitfield as a decimal string. */
export const PermissionString = Type.String({ pattern: SNOWFLAKE_PATTERN });

/**
 * Who acts: a bot (its bot user) or the user of a token the route admits (routeAccess.ts decides
 * which kinds and scopes reach the route). Guild routes act within that user's guild permissions.
 */
export async function guildCaller(req: FastifyRequest, ctx: ServerContext): Promise<{ userId: string; bot: boolean }> {
  const p = await authenticate(req, ctx.store);
  if (p.kind === 'bot') return { userId: p.botUserId, bot: true };
  return { userId: p.userId, bot: false };
}

export { GuildErrors };

/** Rate budgets per caller for the guild routes. */
export const GUILD_READ = { bucket: 'guilds.read', limit: 50, windowMs: 1_000 };
export const GUILD_WRITE = { bucket: 'guilds.write', limit: 10, windowMs: 1_000 };
export const MEMBER_READ = { bucket: 'guilds.members.read', limit: 10, windowMs: 1_000 };

/**
 * A response as the OpenAPI document shows it: the public object named `title` (its fields are
 * those of discord-api-types/v10). Responses are serialized with JSON.stringify, so this
 * describes and never trims; the handler's result type stays its own.
 */
export const Described = (title: string) => Type.Unsafe<unknown>({ type: 'object', title, description: `The public ${title} object (discord-api-types/v10)` });
export const DescribedList = (title: string) => Type.Unsafe<unknown>({ type: 'array', items: { type: 'object', title }, description: `Array of ${title}` });
