import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../../ServerContext.ts';
import { activityCheck, statusCheck } from '../../social/activityCheck.ts';
import { authenticate } from '../auth.ts';
import { object, parse } from '../validate.ts';
import { rateLimit, requireUserScope } from './socialRouteHelpers.ts';

const WRITE = rateLimit('presence.write', 20);
const settingsBody = object({ status: { check: statusCheck, required: true } });

/**
 * Rich presence and online status over HTTP. Gateway op 3 does the same with the same checks;
 * either way friends hear of it as PRESENCE_UPDATE.
 */
export function presenceRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const presence = ctx.social.presence;

  /** UpdateRichPresence: the body is one Activity; the stored one comes back (secrets included). */
  app.put('/api/v10/users/@me/activities', WRITE, async (req) => {
    const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
    const activity = parse(activityCheck, req.body);
    return presence.setActivity(p.applicationId, p.userId, activity);
  });

  /** ClearRichPresence. */
  app.delete('/api/v10/users/@me/activities', WRITE, async (req, reply) => {
    const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
    await presence.clearActivity(p.applicationId, p.userId);
    reply.code(204);
  });

  /** SetOnlineStatus, through the public user-settings route. */
  app.patch('/api/v10/users/@me/settings', WRITE, async (req) => {
    const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
    const body = parse(settingsBody, req.body);
    await presence.setStatus(p.userId, body.status);
    return { status: await presence.chosenStatus(p.userId) };
  });
}
