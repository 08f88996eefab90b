import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isSnowflake, SocialLimits } from '@social-layer/protocol';
import type { ServerContext } from '../../ServerContext.ts';
import { url } from '../../social/activityCheck.ts';
import { SocialErrors } from '../../social/socialErrors.ts';
import { authenticate, requireBot } from '../auth.ts';
import { nullable, object, parse, str } from '../validate.ts';
import { pathUserId, rateLimit, requireUserScope } from './socialRouteHelpers.ts';

const SEND = rateLimit('invites.send', 20);
const READ = rateLimit('invites.read', 60);
const SETTINGS = rateLimit('applications.settings', 10);

const inviteBody = object({ content: { check: str({ min: 0, max: SocialLimits.inviteContentMaxLength }) } });
const settingsBody = object({
  cover_image: { check: nullable(str({ min: SocialLimits.assetImageMinLength, max: SocialLimits.assetImageMaxLength })) },
  launch_url: { check: nullable(url(1, 512)) },
});

function inviteId(req: FastifyRequest): string {
  const id = (req.params as { inviteId: string }).inviteId;
  if (!isSnowflake(id)) throw SocialErrors.unknownInvite();
  return id;
}

/** Game invites, join requests, and an application's invite settings (cover image, launch URL). */
export function inviteRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const invites = ctx.social.invites;

  /** SendActivityInvite. */
  app.post('/api/v10/users/:userId/activity-invites', SEND, async (req) => {
    const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
    const body = parse(inviteBody, req.body ?? {});
    return invites.sendInvite(p.applicationId, p.userId, pathUserId(req), body.content ?? '');
  });

  /** SendActivityJoinRequest. */
  app.post('/api/v10/users/:userId/activity-join-requests', SEND, async (req) => {
    const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
    return invites.sendJoinRequest(p.applicationId, p.userId, pathUserId(req));
  });

  /** Valid invites received in the last 6 hours. */
  app.get('/api/v10/users/@me/activity-invites', READ, async (req) => {
    const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
    return invites.pending(p.applicationId, p.userId);
  });

  /** One received invite: how a deep link (`?invite=<id>`) gets its invite back. */
  app.get('/api/v10/users/@me/activity-invites/:inviteId', READ, async (req) => {
    const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
    return invites.get(p.applicationId, p.userId, inviteId(req));
  });

  /** AcceptActivityInvite: the join secret for createOrJoinLobby. */
  app.post('/api/v10/users/@me/activity-invites/:inviteId/accept', SEND, async (req) => {
    const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
    return invites.accept(p.applicationId, p.userId, inviteId(req));
  });

  /** SendActivityJoinRequestReply: answers a join request with an invite. */
  app.post('/api/v10/users/@me/activity-invites/:inviteId/reply', SEND, async (req) => {
    const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
    return invites.replyToJoinRequest(p.applicationId, p.userId, inviteId(req));
  });

  /** The application's uploaded invite cover and its web game URL (Bot token). */
  app.get('/api/v10/applications/@me/social-settings', SETTINGS, async (req) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    const row = await ctx.store.socialSettings.applicationSettings(bot.applicationId);
    return { cover_image: row?.cover_image ?? null, launch_url: row?.launch_url ?? null };
  });

  app.patch('/api/v10/applications/@me/social-settings', SETTINGS, async (req) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    const body = parse(settingsBody, req.body);
    const row = await ctx.store.socialSettings.updateApplicationSettings(bot.applicationId, { coverImage: body.cover_image, launchUrl: body.launch_url });
    return { cover_image: row.cover_image, launch_url: row.launch_url };
  });
}
