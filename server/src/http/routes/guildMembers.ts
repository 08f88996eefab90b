import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ImageDataUri, NoContent, OptionalBody } from '../schemas/index.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { guildServicesFor } from '../../guilds/GuildServices.ts';
import { messageServiceFor } from '../../messages/MessageService.ts';
import { ApiError, Errors } from '../ApiError.ts';
import { authenticate, requireBot } from '../auth.ts';
import { Described, DescribedList, GUILD_READ, GUILD_WRITE, MEMBER_READ, Snowflake, guildCaller } from './guildRouteHelpers.ts';

const GuildParams = Type.Object({ guild_id: Type.String() });
const MemberParams = Type.Object({ guild_id: Type.String(), user_id: Type.String() });
const MemberRoleParams = Type.Object({ guild_id: Type.String(), user_id: Type.String(), role_id: Type.String() });
/** An image as a data URI (the public upload form); we keep its hash. */
const ImageData = Type.Union([ImageDataUri(60_000), Type.Null()]);

/** Members (get, list, search, modify, role add/remove, kick, Modify Current Member) and bans. */
export function guildMemberRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const s = guildServicesFor(ctx.store, ctx.bus);
  const messages = messageServiceFor(ctx.store, ctx.bus, { publicUrl: () => ctx.publicHttpUrl(), ...(ctx.dataDir ? { dataDir: ctx.dataDir } : {}) });

  r.get('/api/v10/guilds/:guild_id/members', {
    schema: { response: { 200: DescribedList('GuildMember') }, params: GuildParams, querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })), after: Type.Optional(Snowflake) }) },
    config: { rateLimit: MEMBER_READ },
  }, async (req) => {
    return s.members.listMembers((await guildCaller(req, ctx)).userId, req.params.guild_id, { limit: req.query.limit ?? 1, ...(req.query.after ? { after: req.query.after } : {}) });
  });

  r.get('/api/v10/guilds/:guild_id/members/search', {
    schema: { response: { 200: DescribedList('GuildMember') }, params: GuildParams, querystring: Type.Object({ query: Type.String({ minLength: 1, maxLength: 100 }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }) },
    config: { rateLimit: MEMBER_READ },
  }, async (req) => {
    return s.members.searchMembers((await guildCaller(req, ctx)).userId, req.params.guild_id, req.query.query, req.query.limit ?? 1);
  });

  // Modify Current Member: `nick`, and `banner`, `avatar`, `bio` (spec).
  r.patch('/api/v10/guilds/:guild_id/members/@me', {
    schema: { response: { 200: Described('GuildMember') },
      params: GuildParams,
      body: Type.Object({
        nick: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Null()])),
        banner: Type.Optional(ImageData),
        avatar: Type.Optional(ImageData),
        bio: Type.Optional(Type.Union([Type.String({ maxLength: 190 }), Type.Null()])),
      }),
    },
    config: { rateLimit: GUILD_WRITE },
  }, async (req) => {
    return s.members.modifyCurrentMember((await guildCaller(req, ctx)).userId, req.params.guild_id, req.body);
  });

  r.get('/api/v10/guilds/:guild_id/members/:user_id', { schema: { response: { 200: Described('GuildMember') }, params: MemberParams }, config: { rateLimit: GUILD_READ } }, async (req) => {
    const caller = await guildCaller(req, ctx);
    return s.members.getMember(caller.userId, req.params.guild_id, req.params.user_id === '@me' ? caller.userId : req.params.user_id);
  });

  // Get Current User Guild Member: what the `guilds.members.read` scope grants a game (the
  // player's own member object in one of their guilds; 10004 where they are not a member).
  r.get('/api/v10/users/@me/guilds/:guild_id/member', { schema: { response: { 200: Described('GuildMember') }, params: GuildParams }, config: { rateLimit: MEMBER_READ } }, async (req) => {
    const caller = await guildCaller(req, ctx);
    return s.members.getMember(caller.userId, req.params.guild_id, caller.userId);
  });

  r.patch('/api/v10/guilds/:guild_id/members/:user_id', {
    schema: { response: { 200: Described('GuildMember') },
      params: MemberParams,
      body: Type.Object({
        nick: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Null()])),
        roles: Type.Optional(Type.Array(Snowflake, { maxItems: 250 })),
        flags: Type.Optional(Type.Integer({ minimum: 0, maximum: 0xffff })),
        communication_disabled_until: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()])),
        // Server mute (MUTE_MEMBERS), deafen (DEAFEN_MEMBERS), move or disconnect (MOVE_MEMBERS, null): the member must be in voice (40032).
        mute: Type.Optional(Type.Boolean()),
        deaf: Type.Optional(Type.Boolean()),
        channel_id: Type.Optional(Type.Union([Snowflake, Type.Null()])),
        // Modify Current Member's fields, for the encoded @me path.
        banner: Type.Optional(ImageData),
        avatar: Type.Optional(ImageData),
        bio: Type.Optional(Type.Union([Type.String({ maxLength: 190 }), Type.Null()])),
      }),
    },
    config: { rateLimit: GUILD_WRITE },
  }, async (req) => {
    const caller = await guildCaller(req, ctx);
    // Clients that percent-encode the path (discord.js sends members/%40me) land here, not on the static @me route.
    if (req.params.user_id === '@me') return s.members.modifyCurrentMember(caller.userId, req.params.guild_id, req.body);
    return s.members.modifyMember(caller.userId, req.params.guild_id, req.params.user_id, req.body, req.audit);
  });

  // Add Guild Member: the bot of the application the user granted `guilds.join` to, with that
  // token in the body; 201 with the member, 204 when they already were one.
  r.put('/api/v10/guilds/:guild_id/members/:user_id', {
    schema: {
      response: { 201: Described('GuildMember'), 204: NoContent },
      params: MemberParams,
      body: Type.Object({
        access_token: Type.String({ minLength: 1, maxLength: 10_240 }),
        nick: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Null()])),
        roles: Type.Optional(Type.Union([Type.Array(Snowflake, { maxItems: 250, uniqueItems: true }), Type.Null()])),
        mute: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
        deaf: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
        flags: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
      }),
    },
    config: { rateLimit: GUILD_WRITE },
  }, async (req, reply) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    // The token must be this application's, for this user, and hold guilds.join.
    const grant = await ctx.store.tokens.resolve(req.body.access_token);
    if (!grant || grant.applicationId !== bot.applicationId || grant.userId !== req.params.user_id) throw new ApiError(403, 50025, 'Invalid OAuth2 access token provided');
    if (!grant.scopes.includes('guilds.join')) throw Errors.missingScope('guilds.join');
    const { access_token: _token, ...fields } = req.body;
    const member = await s.members.addWithToken(bot.botUserId, req.params.guild_id, grant.userId, fields);
    if (!member) return reply.code(204).send();
    return reply.code(201).send(member);
  });

  r.delete('/api/v10/guilds/:guild_id/members/:user_id', { schema: { response: { 204: NoContent }, params: MemberParams }, config: { rateLimit: GUILD_WRITE } }, async (req, reply) => {
    await s.members.kick((await guildCaller(req, ctx)).userId, req.params.guild_id, req.params.user_id, req.audit);
    void reply.code(204);
  });

  r.put('/api/v10/guilds/:guild_id/members/:user_id/roles/:role_id', { schema: { response: { 204: NoContent }, params: MemberRoleParams }, config: { rateLimit: GUILD_WRITE } }, async (req, reply) => {
    await s.members.addRole((await guildCaller(req, ctx)).userId, req.params.guild_id, req.params.user_id, req.params.role_id, req.audit);
    void reply.code(204);
  });

  r.delete('/api/v10/guilds/:guild_id/members/:user_id/roles/:role_id', { schema: { response: { 204: NoContent }, params: MemberRoleParams }, config: { rateLimit: GUILD_WRITE } }, async (req, reply) => {
    await s.members.removeRole((await guildCaller(req, ctx)).userId, req.params.guild_id, req.params.user_id, req.params.role_id, req.audit);
    void reply.code(204);
  });

  r.get('/api/v10/guilds/:guild_id/bans', {
    schema: { response: { 200: DescribedList('Ban') }, params: GuildParams, querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })), after: Type.Optional(Snowflake) }) },
    config: { rateLimit: GUILD_READ },
  }, async (req) => {
    return s.members.bans((await guildCaller(req, ctx)).userId, req.params.guild_id, { limit: req.query.limit ?? 1000, ...(req.query.after ? { after: req.query.after } : {}) });
  });

  r.get('/api/v10/guilds/:guild_id/bans/:user_id', { schema: { response: { 200: Described('Ban') }, params: MemberParams }, config: { rateLimit: GUILD_READ } }, async (req) => {
    return s.members.getBan((await guildCaller(req, ctx)).userId, req.params.guild_id, req.params.user_id);
  });

  r.put('/api/v10/guilds/:guild_id/bans/:user_id', {
    schema: { response: { 204: NoContent }, params: MemberParams, body: OptionalBody(Type.Object({ delete_message_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800 })), reason: Type.Optional(Type.String({ maxLength: 512 })) })) },
    config: { rateLimit: GUILD_WRITE },
  }, async (req, reply) => {
    // The body's `reason` (the older form) wins over X-Audit-Log-Reason, for the ban and its audit
    // entry alike; the header is decoded once, by the audit scope (a malformed one kept as sent).
    const reason = req.body?.reason ?? req.audit?.reason ?? null;
    if (req.audit) req.audit.reason = reason;
    await s.members.ban((await guildCaller(req, ctx)).userId, req.params.guild_id, req.params.user_id, reason, req.audit);
    await messages.deleteRecentByAuthors(req.params.guild_id, [req.params.user_id], req.body?.delete_message_seconds ?? 0);
    void reply.code(204);
  });

  // Bulk Guild Ban: 1 to 200 distinct users; who was banned and who was not.
  r.post('/api/v10/guilds/:guild_id/bulk-ban', {
    schema: {
      response: { 200: Type.Object({ banned_users: Type.Array(Snowflake), failed_users: Type.Array(Snowflake) }, { title: 'BulkBanUsersResponse' }) },
      params: GuildParams,
      body: Type.Object({ user_ids: Type.Array(Snowflake, { minItems: 1, maxItems: 200, uniqueItems: true }), delete_message_seconds: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 604_800 }), Type.Null()])) }),
    },
    config: { rateLimit: GUILD_WRITE },
  }, async (req) => {
    const result = await s.members.bulkBan((await guildCaller(req, ctx)).userId, req.params.guild_id, req.body.user_ids, req.audit?.reason ?? null, req.audit);
    await messages.deleteRecentByAuthors(req.params.guild_id, result.banned_users, req.body.delete_message_seconds ?? 0);
    return result;
  });

  r.delete('/api/v10/guilds/:guild_id/bans/:user_id', { schema: { response: { 204: NoContent }, params: MemberParams }, config: { rateLimit: GUILD_WRITE } }, async (req, reply) => {
    await s.members.unban((await guildCaller(req, ctx)).userId, req.params.guild_id, req.params.user_id, req.audit);
    void reply.code(204);
  });
}
