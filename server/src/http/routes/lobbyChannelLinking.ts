import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../../ServerContext.ts';
import type { LinkedChannelService } from '../../lobbies/LinkedChannelService.ts';
import { authenticate, requireBearer, requireBot } from '../auth.ts';
import { BEARER, BOT, IdParam, LobbySchema, NotFound, Nullable, OptionalBody, Snowflake, Type, type TypeBoxTypeProvider } from '../schemas/index.ts';

const SCOPE = 'sdk.social_layer';
const TAGS = ['lobbies'];
/** Linking is rare: 20 per 2 h per application before approval in the public system; per caller here, sized for play. */
const LINK = { rateLimit: { bucket: 'lobbies.channel-linking', limit: 20, windowMs: 60_000 } };
const INVITE = { rateLimit: { bucket: 'lobbies.invites', limit: 20, windowMs: 60_000 } };
const READ = { rateLimit: { bucket: 'lobbies.guilds.read', limit: 30, windowMs: 10_000 } };

const LobbyParams = Type.Object({ id: IdParam(NotFound.lobby, 'Lobby ID; anything else answers 10031') });
const MemberParams = Type.Object({ id: IdParam(NotFound.lobby), userId: IdParam(NotFound.user, 'User ID; anything else answers 10013') });
const GuildParams = Type.Object({ guild_id: IdParam({ code: 10004, message: 'Unknown Guild' }, 'Guild ID; anything else answers 10004') });
const LinkBody = Type.Object({ channel_id: Type.Optional(Nullable(Snowflake())) });
const InviteSchema = Type.Object(
  { code: Type.String(), expires_at: Type.String({ description: 'Ours: ISO 8601, one hour after creation' }), guild_id: Snowflake(), channel_id: Snowflake() },
  { title: 'LobbyChannelInvite' },
);
const GuildMinimalSchema = Type.Object({ id: Snowflake(), name: Type.String() }, { title: 'GuildMinimal' });
const GuildChannelSchema = Type.Object(
  {
    id: Snowflake(),
    name: Type.String(),
    type: Type.Integer(),
    position: Type.Integer(),
    parent_id: Type.Union([Snowflake(), Type.Null()]),
    is_linkable: Type.Boolean(),
    is_viewable_and_writeable_by_all_members: Type.Boolean(),
    linked_lobby: Type.Union([Type.Object({ application_id: Snowflake(), lobby_id: Snowflake() }), Type.Null()]),
  },
  { title: 'SdkGuildChannel' },
);

function service(ctx: ServerContext): LinkedChannelService {
  if (!ctx.linkedChannels) throw new Error('linked channels are not wired (startServer)');
  return ctx.linkedChannels;
}

/**
 * Linked channels (issue 12): protocols.md 2.6's channel-linking and lobby channel invites, and
 * the SDK's guild surface (GetUserGuilds, GetGuildChannels) under `/users/@me/sdk/` (ours: the
 * SDK's own transport is not public; these answer a game's token with the communication scope).
 */
export function lobbyChannelLinkingRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.patch(
    '/api/v10/lobbies/:id/channel-linking',
    { schema: { summary: 'Link the lobby to a guild text channel (channel_id), or unlink (empty body)', tags: TAGS, security: BEARER, params: LobbyParams, body: OptionalBody(LinkBody), response: { 200: LobbySchema } }, config: LINK },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store), SCOPE);
      return service(ctx).setLink(p.applicationId, req.params.id, p.userId, req.body?.channel_id ?? null);
    },
  );

  r.post(
    '/api/v10/lobbies/:id/members/@me/invites',
    { schema: { summary: 'Create Lobby Channel Invite for Self: single use, one hour, to the linked channel', tags: TAGS, security: BEARER, params: LobbyParams, response: { 200: InviteSchema } }, config: INVITE },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store), SCOPE);
      return service(ctx).createInvite(p.applicationId, req.params.id, p.userId);
    },
  );

  r.post(
    '/api/v10/lobbies/:id/members/:userId/invites',
    { schema: { summary: 'Create Lobby Channel Invite for User (Bot token)', tags: TAGS, security: BOT, params: MemberParams, response: { 200: InviteSchema } }, config: INVITE },
    async (req) => {
      const bot = requireBot(await authenticate(req, ctx.store));
      return service(ctx).createInvite(bot.applicationId, req.params.id, req.params.userId);
    },
  );

  r.get(
    '/api/v10/users/@me/sdk/guilds',
    { schema: { summary: 'GetUserGuilds: the guilds the user is in (GuildMinimal)', tags: TAGS, security: BEARER, response: { 200: Type.Array(GuildMinimalSchema) } }, config: READ },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store), SCOPE);
      return service(ctx).userGuilds(p.userId);
    },
  );

  r.get(
    '/api/v10/users/@me/sdk/guilds/:guild_id/channels',
    { schema: { summary: 'GetGuildChannels: viewable channels by position, with linkability', tags: TAGS, security: BEARER, params: GuildParams, response: { 200: Type.Array(GuildChannelSchema) } }, config: READ },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store), SCOPE);
      return service(ctx).guildChannels(p.userId, req.params.guild_id);
    },
  );
}
