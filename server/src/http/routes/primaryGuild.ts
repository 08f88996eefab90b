import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServerContext } from '../../ServerContext.ts';
import { authenticate } from '../auth.ts';
import { guildServicesFor } from '../../guilds/GuildServices.ts';
import { GuildErrors, Snowflake, guildCaller } from './guildRouteHelpers.ts';
import { UserSchema } from '../schemas/index.ts';

/**
 * PUT /users/@me/primary-guild: the user picks the guild whose tag they show beside their name
 * (`primary_guild` on their user object, spec User). The public API documents the field but no
 * route to set it, so the path is ours; the body uses the field's own names. The person through
 * the web app only (routeAccess.ts; a bot gets 20001).
 */
export function primaryGuildRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const s = guildServicesFor(ctx.store, ctx.bus);
  r.put('/api/v10/users/@me/primary-guild', {
    schema: {
      summary: 'Choose the primary guild (the guild tag shown as primary_guild)',
      tags: ['users'],
      body: Type.Object({
        identity_guild_id: Type.Union([Snowflake, Type.Null()], { description: 'A guild the user is a member of that has a tag; null for none' }),
        identity_enabled: Type.Optional(Type.Boolean({ description: 'Show the tag (default true)' })),
      }),
      response: { 200: UserSchema },
    },
    config: { rateLimit: { bucket: 'users.primary_guild', limit: 10, windowMs: 10_000 } },
  }, async (req) => {
    const p = await authenticate(req, ctx.store);
    if (p.kind === 'bot') throw GuildErrors.botsCannotUse();
    const caller = await guildCaller(req, ctx);
    return s.primaryGuilds.choose(caller.userId, req.body.identity_guild_id, req.body.identity_enabled ?? true);
  });
}
