import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServerContext } from '../../ServerContext.ts';
import { viewGuild } from '../../guilds/GuildAccess.ts';
import { ApiError } from '../ApiError.ts';
import { BEARER_OR_BOT, Snowflake, Wire } from '../schemas/index.ts';
import type { CallVoiceState } from '../../voice/VoiceStateService.ts';
import { GUILD_READ, guildCaller } from './guildRouteHelpers.ts';

const GuildParams = Type.Object({ guild_id: Type.String() });
const UserParams = Type.Object({ guild_id: Type.String(), user_id: Type.String() });

/** The public Voice State object of a guild member in a voice channel. */
const VoiceStateSchema = Wire<CallVoiceState>(Type.Object(
  {
    guild_id: Snowflake(),
    channel_id: Type.Union([Snowflake(), Type.Null()]),
    user_id: Snowflake(),
    member: Type.Optional(Type.Object({}, { description: 'The guild member' })),
    session_id: Type.String(),
    deaf: Type.Boolean(),
    mute: Type.Boolean(),
    self_deaf: Type.Boolean(),
    self_mute: Type.Boolean(),
    self_stream: Type.Optional(Type.Boolean()),
    self_video: Type.Boolean(),
    suppress: Type.Boolean({ description: 'True without SPEAK in the channel: the user hears, what they send is dropped' }),
    request_to_speak_timestamp: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'VoiceState' },
));

const unknownVoiceState = () => new ApiError(404, 10065, 'Unknown Voice State');

/**
 * Get Current User Voice State and Get User Voice State (issue 10): a guild member reads where a
 * member of that guild is in voice. 10004 unknown guild, 50001 not a member, 10065 when the user is
 * in no voice channel of the guild (or is unknown there).
 */
export function guildVoiceStateRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  const read = async (guildId: string, callerId: string, userId: string) => {
    await viewGuild(ctx.store, guildId, callerId);
    const state = ctx.voiceStates?.guildVoiceState(guildId, userId);
    if (!state) throw unknownVoiceState();
    return state;
  };

  r.get('/api/v10/guilds/:guild_id/voice-states/@me', {
    schema: { summary: 'Get Current User Voice State', tags: ['Guilds'], security: BEARER_OR_BOT, params: GuildParams, response: { 200: VoiceStateSchema } },
    config: { rateLimit: GUILD_READ },
  }, async (req) => {
    const caller = await guildCaller(req, ctx);
    return read(req.params.guild_id, caller.userId, caller.userId);
  });

  r.get('/api/v10/guilds/:guild_id/voice-states/:user_id', {
    schema: { summary: 'Get User Voice State', tags: ['Guilds'], security: BEARER_OR_BOT, params: UserParams, response: { 200: VoiceStateSchema } },
    config: { rateLimit: GUILD_READ },
  }, async (req) => {
    const caller = await guildCaller(req, ctx);
    return read(req.params.guild_id, caller.userId, req.params.user_id);
  });
}
