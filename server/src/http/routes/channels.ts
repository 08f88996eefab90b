import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServerContext } from '../../ServerContext.ts';
import { guildServicesFor } from '../../guilds/GuildServices.ts';
import { privateChannelsFor, type PrivateCaller } from '../../messages/privateChannels.ts';
import { principalOf } from '../auth.ts';

/** The token behind a request guildCaller let through, for the DM gate (PrivateChannels.mayUse). */
function privateWho(req: FastifyRequest): PrivateCaller {
  const p = principalOf(req)!;
  return { bot: p.kind === 'bot', applicationId: p.applicationId };
}
import { Described, DescribedList, GUILD_READ, GUILD_WRITE, PermissionString, Snowflake, guildCaller } from './guildRouteHelpers.ts';
import { Name, NoContent } from '../schemas/index.ts';
import { setVoiceChannelStatus } from '../../voice/voiceChannelStatus.ts';

const GuildParams = Type.Object({ guild_id: Type.String() });
const ChannelParams = Type.Object({ channel_id: Type.String() });

const Overwrites = Type.Array(
  Type.Object({ id: Snowflake, type: Type.Union([Type.Literal(0), Type.Literal(1)]), allow: Type.Optional(PermissionString), deny: Type.Optional(PermissionString) }),
  { maxItems: 100 },
);
const channelFields = {
  topic: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
  position: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
  parent_id: Type.Optional(Type.Union([Snowflake, Type.Null()])),
  nsfw: Type.Optional(Type.Boolean()),
  bitrate: Type.Optional(Type.Integer({ minimum: 8000, maximum: 384_000 })),
  user_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 99 })),
  rate_limit_per_user: Type.Optional(Type.Integer({ minimum: 0, maximum: 21_600 })),
  permission_overwrites: Type.Optional(Overwrites),
};
/** Text, voice, category and announcement: the guild channel types modelled here. */
const ChannelTypeSchema = Type.Union([Type.Literal(0), Type.Literal(2), Type.Literal(4), Type.Literal(5)]);
const OverwriteParams = Type.Object({ channel_id: Type.String(), overwrite_id: Type.String() });
/** A bitfield as the document has it (an integer) or as clients send it (a decimal string, for bits past 2^53). */
const Bits = Type.Optional(Type.Union([PermissionString, Type.Integer({ minimum: 0 }), Type.Null()]));
const bits = (v: string | number | null | undefined): string | null | undefined => (typeof v === 'number' ? String(v) : v);

/** Guild channels: list (only what the caller may view), create, reorder; get, modify, delete one. */
export function channelRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const s = guildServicesFor(ctx.store, ctx.bus);
  const dms = privateChannelsFor(ctx.store, ctx.bus);

  r.get('/api/v10/guilds/:guild_id/channels', { schema: { response: { 200: DescribedList('Channel') }, params: GuildParams }, config: { rateLimit: GUILD_READ } }, async (req) => {
    const caller = await guildCaller(req, ctx);
    return s.guilds.listChannels(caller.userId, req.params.guild_id);
  });

  r.post('/api/v10/guilds/:guild_id/channels', {
    schema: { response: { 201: Described('Channel') }, params: GuildParams, body: Type.Object({ name: Name(1, 100), type: Type.Optional(ChannelTypeSchema), ...channelFields }) },
   
    config: { rateLimit: GUILD_WRITE },
  }, async (req, reply) => {
    const caller = await guildCaller(req, ctx);
    void reply.code(201);
    return s.guilds.createChannel(caller.userId, req.params.guild_id, req.body, req.audit);
  });

  r.patch('/api/v10/guilds/:guild_id/channels', {
    schema: { response: { 204: NoContent },
      params: GuildParams,
      body: Type.Array(
        Type.Object({
          id: Snowflake,
          position: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 10_000 }), Type.Null()])),
          parent_id: Type.Optional(Type.Union([Snowflake, Type.Null()])),
          lock_permissions: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
        }),
        { minItems: 1, maxItems: 500 },
      ),
    },
   
    config: { rateLimit: GUILD_WRITE },
  }, async (req, reply) => {
    const caller = await guildCaller(req, ctx);
    await s.guilds.reorderChannels(caller.userId, req.params.guild_id, req.body, req.audit);
    void reply.code(204);
  });

  r.put('/api/v10/channels/:channel_id/voice-status', {
    schema: { response: { 204: NoContent }, params: ChannelParams, body: Type.Object({ status: Type.Union([Type.String({ maxLength: 500 }), Type.Null()]) }) },
    config: { rateLimit: GUILD_WRITE },
  }, async (req, reply) => {
    const caller = await guildCaller(req, ctx);
    // Connected = holding a seat in the channel's call on this node (guild calls live on one node).
    const connected = ctx.voiceStates?.state(req.params.channel_id, caller.userId) !== undefined;
    await setVoiceChannelStatus(ctx.store, ctx.bus, caller.userId, req.params.channel_id, req.body.status, connected, req.audit?.reason ?? null);
    void reply.code(204);
  });

  // Edit Channel Permissions / Delete Channel Permission: one overwrite at a time (MANAGE_ROLES).
  r.put('/api/v10/channels/:channel_id/permissions/:overwrite_id', {
    schema: { response: { 204: NoContent }, params: OverwriteParams, body: Type.Object({ type: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1), Type.Null()])), allow: Bits, deny: Bits }) },
    config: { rateLimit: GUILD_WRITE },
  }, async (req, reply) => {
    const caller = await guildCaller(req, ctx);
    const { type, allow, deny } = req.body;
    await s.guilds.setOverwrite(caller.userId, req.params.channel_id, req.params.overwrite_id, { type, allow: bits(allow), deny: bits(deny) }, req.audit);
    void reply.code(204);
  });

  r.delete('/api/v10/channels/:channel_id/permissions/:overwrite_id', { schema: { response: { 204: NoContent }, params: OverwriteParams }, config: { rateLimit: GUILD_WRITE } }, async (req, reply) => {
    const caller = await guildCaller(req, ctx);
    await s.guilds.deleteOverwrite(caller.userId, req.params.channel_id, req.params.overwrite_id, req.audit);
    void reply.code(204);
  });

  r.get('/api/v10/channels/:channel_id', { schema: { response: { 200: Described('Channel') }, params: ChannelParams }, config: { rateLimit: GUILD_READ } }, async (req) => {
    const caller = await guildCaller(req, ctx);
    // A DM or group DM of full accounts (messages/privateChannels.ts) answers here too.
    return (await dms.getChannel(caller.userId, req.params.channel_id, privateWho(req))) ?? s.guilds.getChannel(caller.userId, req.params.channel_id);
  });

  r.patch('/api/v10/channels/:channel_id', {
    schema: { response: { 200: Described('Channel') }, params: ChannelParams, body: Type.Object({ name: Type.Optional(Name(1, 100)), type: Type.Optional(ChannelTypeSchema), ...channelFields }) },
   
    config: { rateLimit: GUILD_WRITE },
  }, async (req) => {
    const caller = await guildCaller(req, ctx);
    return (await dms.modifyChannel(caller.userId, req.params.channel_id, privateWho(req), req.body)) ?? s.guilds.modifyChannel(caller.userId, req.params.channel_id, req.body, req.audit);
  });

  r.delete('/api/v10/channels/:channel_id', { schema: { response: { 200: Described('Channel') }, params: ChannelParams }, config: { rateLimit: GUILD_WRITE } }, async (req) => {
    const caller = await guildCaller(req, ctx);
    return (await dms.closeChannel(caller.userId, req.params.channel_id, privateWho(req))) ?? s.guilds.deleteChannel(caller.userId, req.params.channel_id, req.audit);
  });
}
