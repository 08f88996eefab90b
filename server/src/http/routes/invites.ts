import type { FastifyInstance } from 'fastify';
import type { AcceptActivityInviteResult } from '@social-layer/protocol';
import { SocialLimits } from '@social-layer/protocol';
import type { ServerContext } from '../../ServerContext.ts';
import { authenticate, requireBot } from '../auth.ts';
import { ActivityInviteSchema, BEARER, BOT, HttpUrl, IdParam, NotFound, Nullable, OptionalBody, Snowflake, Str, Type, type TypeBoxTypeProvider, Wire } from '../schemas/index.ts';
import { rateLimit, requireUserScope, UserParams } from './socialRouteHelpers.ts';

const SEND = rateLimit('invites.send', 20);
const READ = rateLimit('invites.read', 60);
const SETTINGS = rateLimit('applications.settings', 10);
const TAGS = ['invites'];

const InviteBody = OptionalBody(Type.Object({ content: Type.Optional(Str(0, SocialLimits.inviteContentMaxLength, { description: 'Free text sent with the invite' })) }));
const SettingsFields = {
  cover_image: Type.Optional(Nullable(Str(SocialLimits.assetImageMinLength, SocialLimits.assetImageMaxLength, { description: 'Invite cover (asset key or URL); invites fall back to it' }))),
  launch_url: Type.Optional(Nullable(HttpUrl(1, 512, 'The web game\'s URL: invites link to it with ?invite=<id>'))),
};
const SettingsBody = Type.Object(SettingsFields);
const Settings = Type.Object({ cover_image: Nullable(Type.String()), launch_url: Nullable(Type.String()) }, { title: 'SocialSettings' });
const InviteParams = Type.Object({ inviteId: IdParam(NotFound.invite, 'Invite (message) ID; anything else answers 10006') });
const AcceptResult = Wire<AcceptActivityInviteResult>(Type.Object({ secret: Type.String({ description: 'Join secret for createOrJoinLobby' }), party_id: Type.String(), application_id: Snowflake() }, { title: 'AcceptedInvite' }));

/** Game invites, join requests, and an application's invite settings (cover image, launch URL). */
export function inviteRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const invites = ctx.social.invites;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  /** SendActivityInvite. */
  r.post(
    '/api/v10/users/:userId/activity-invites',
    { schema: { summary: 'Invite a user to your party (SendActivityInvite)', tags: TAGS, security: BEARER, params: UserParams, body: InviteBody, response: { 200: ActivityInviteSchema } }, config: SEND },
    async (req) => {
      const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
      return invites.sendInvite(p.applicationId, p.userId, req.params.userId, req.body?.content ?? '');
    },
  );

  /** SendActivityJoinRequest. */
  r.post(
    '/api/v10/users/:userId/activity-join-requests',
    { schema: { summary: 'Ask to join a user\'s party (SendActivityJoinRequest)', tags: TAGS, security: BEARER, params: UserParams, response: { 200: ActivityInviteSchema } }, config: SEND },
    async (req) => {
      const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
      return invites.sendJoinRequest(p.applicationId, p.userId, req.params.userId);
    },
  );

  /** Valid invites received in the last 6 hours. */
  r.get(
    '/api/v10/users/@me/activity-invites',
    { schema: { summary: 'Valid invites received in the last 6 hours', tags: TAGS, security: BEARER, response: { 200: Type.Array(ActivityInviteSchema) } }, config: READ },
    async (req) => {
      const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
      return invites.pending(p.applicationId, p.userId);
    },
  );

  /** One received invite: how a deep link (`?invite=<id>`) gets its invite back. */
  r.get(
    '/api/v10/users/@me/activity-invites/:inviteId',
    { schema: { summary: 'One received invite (deep links)', tags: TAGS, security: BEARER, params: InviteParams, response: { 200: ActivityInviteSchema } }, config: READ },
    async (req) => {
      const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
      return invites.get(p.applicationId, p.userId, req.params.inviteId);
    },
  );

  /** AcceptActivityInvite: the join secret for createOrJoinLobby. */
  r.post(
    '/api/v10/users/@me/activity-invites/:inviteId/accept',
    { schema: { summary: 'Accept an invite: the join secret (AcceptActivityInvite)', tags: TAGS, security: BEARER, params: InviteParams, response: { 200: AcceptResult } }, config: SEND },
    async (req) => {
      const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
      return invites.accept(p.applicationId, p.userId, req.params.inviteId);
    },
  );

  /** SendActivityJoinRequestReply: answers a join request with an invite. */
  r.post(
    '/api/v10/users/@me/activity-invites/:inviteId/reply',
    { schema: { summary: 'Answer a join request with an invite (SendActivityJoinRequestReply)', tags: TAGS, security: BEARER, params: InviteParams, response: { 200: ActivityInviteSchema } }, config: SEND },
    async (req) => {
      const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
      return invites.replyToJoinRequest(p.applicationId, p.userId, req.params.inviteId);
    },
  );

  /** The application's uploaded invite cover and its web game URL (Bot token). */
  r.get(
    '/api/v10/applications/@me/social-settings',
    { schema: { summary: 'The application\'s invite cover and launch URL', tags: TAGS, security: BOT, response: { 200: Settings } }, config: SETTINGS },
    async (req) => {
      const bot = requireBot(await authenticate(req, ctx.store));
      const row = await ctx.store.socialSettings.applicationSettings(bot.applicationId);
      return { cover_image: row?.cover_image ?? null, launch_url: row?.launch_url ?? null };
    },
  );

  r.patch(
    '/api/v10/applications/@me/social-settings',
    { schema: { summary: 'Change the invite cover or launch URL', tags: TAGS, security: BOT, body: SettingsBody, response: { 200: Settings } }, config: SETTINGS },
    async (req) => {
      const bot = requireBot(await authenticate(req, ctx.store));
      const body = req.body;
      const row = await ctx.store.socialSettings.updateApplicationSettings(bot.applicationId, { coverImage: body.cover_image, launchUrl: body.launch_url });
      return { cover_image: row.cover_image, launch_url: row.launch_url };
    },
  );
}
