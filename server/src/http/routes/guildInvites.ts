import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServerContext } from '../../ServerContext.ts';
import { authenticate } from '../auth.ts';
import { guildServicesFor } from '../../guilds/GuildServices.ts';
import { GUILD_READ, GUILD_WRITE, GuildErrors, Snowflake, guildCaller, schemaErrors } from './guildRouteHelpers.ts';

const ChannelParams = Type.Object({ channel_id: Type.String() });
const GuildParams = Type.Object({ guild_id: Type.String() });
const CodeParams = Type.Object({ code: Type.String() });

/**
 * Guild invites (the game invites of issue 6 are in invites.ts): create with `max_age`,
 * `max_uses`, `role_ids` and target users; list per channel and guild; get, accept, delete; the
 * target-user list as CSV.
 */
export function guildInviteRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const s = guildServicesFor(ctx.store, ctx.bus);
  const opts = { schemaErrorFormatter: schemaErrors };

  r.post('/api/v10/channels/:channel_id/invites', {
    ...opts,
    schema: {
      params: ChannelParams,
      body: Type.Optional(Type.Object({
        max_age: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800 })),
        max_uses: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
        temporary: Type.Optional(Type.Boolean()),
        unique: Type.Optional(Type.Boolean()),
        role_ids: Type.Optional(Type.Array(Snowflake, { maxItems: 250 })),
        // JSON form of the target-user list (the multipart CSV upload is target_users_file).
        target_user_ids: Type.Optional(Type.Array(Snowflake, { maxItems: 10_000 })),
      })),
    },
    config: { rateLimit: GUILD_WRITE },
  }, async (req) => {
    const caller = await guildCaller(req, ctx);
    const body = req.body ?? {};
    return s.invites.create(caller.userId, req.params.channel_id, body, body.target_user_ids);
  });

  r.get('/api/v10/channels/:channel_id/invites', { ...opts, schema: { params: ChannelParams }, config: { rateLimit: GUILD_READ } }, async (req) => {
    return s.invites.channelInvites((await guildCaller(req, ctx)).userId, req.params.channel_id);
  });

  r.get('/api/v10/guilds/:guild_id/invites', { ...opts, schema: { params: GuildParams }, config: { rateLimit: GUILD_READ } }, async (req) => {
    return s.invites.guildInvites((await guildCaller(req, ctx)).userId, req.params.guild_id);
  });

  r.get('/api/v10/invites/:code', {
    ...opts,
    schema: { params: CodeParams, querystring: Type.Object({ with_counts: Type.Optional(Type.Boolean()), with_expiration: Type.Optional(Type.Boolean()) }) },
    config: { rateLimit: GUILD_READ },
  }, async (req) => {
    await authenticate(req, ctx.store);
    return s.invites.get(req.params.code, req.query.with_counts === true);
  });

  // Accepting is a user's act (bots join through installation): POST /invites/{code}.
  r.post('/api/v10/invites/:code', { ...opts, schema: { params: CodeParams }, config: { rateLimit: GUILD_WRITE } }, async (req) => {
    const caller = await guildCaller(req, ctx);
    if (caller.bot) throw GuildErrors.botsCannotUse();
    return s.invites.accept(caller.userId, req.params.code);
  });

  r.delete('/api/v10/invites/:code', { ...opts, schema: { params: CodeParams }, config: { rateLimit: GUILD_WRITE } }, async (req) => {
    return s.invites.delete((await guildCaller(req, ctx)).userId, req.params.code);
  });

  // Get Target Users: a CSV whose only header is `user_id` (spec).
  r.get('/api/v10/invites/:code/target-users', { ...opts, schema: { params: CodeParams }, config: { rateLimit: GUILD_READ } }, async (req, reply) => {
    const csv = await s.invites.targetUsersCsv((await guildCaller(req, ctx)).userId, req.params.code);
    void reply.type('text/csv; charset=utf-8');
    return csv;
  });

  r.get('/api/v10/invites/:code/target-users/job-status', { ...opts, schema: { params: CodeParams }, config: { rateLimit: GUILD_READ } }, async (req) => {
    return s.invites.targetUsersJobStatus((await guildCaller(req, ctx)).userId, req.params.code);
  });

  r.put('/api/v10/invites/:code/target-users', {
    ...opts,
    schema: { params: CodeParams, body: Type.Object({ target_user_ids: Type.Array(Snowflake, { maxItems: 10_000 }) }) },
    config: { rateLimit: GUILD_WRITE },
  }, async (req, reply) => {
    await s.invites.updateTargetUsers((await guildCaller(req, ctx)).userId, req.params.code, req.body.target_user_ids);
    void reply.code(204);
  });
}
