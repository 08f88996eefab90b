import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../../ServerContext.ts';
import { ActivityBody, StatusValue } from '../../social/activityCheck.ts';
import { authenticate } from '../auth.ts';
import { ActivitySchema, BEARER, NoContent, Type, type TypeBoxTypeProvider } from '../schemas/index.ts';
import { rateLimit, requireUserScope } from './socialRouteHelpers.ts';

const WRITE = rateLimit('presence.write', 20);
const TAGS = ['presence'];
const SettingsBody = Type.Object({ status: StatusValue });

/**
 * Rich presence and online status over HTTP. Gateway op 3 does the same with the same checks;
 * either way friends hear of it as PRESENCE_UPDATE.
 */
export function presenceRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const presence = ctx.social.presence;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  /** UpdateRichPresence: the body is one Activity; the stored one comes back (secrets included). */
  r.put(
    '/api/v10/users/@me/activities',
    { schema: { summary: 'Set this application\'s rich presence (UpdateRichPresence)', tags: TAGS, security: BEARER, body: ActivityBody, response: { 200: ActivitySchema } }, config: WRITE },
    async (req) => {
      const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
      return presence.setActivity(p.applicationId, p.userId, req.body);
    },
  );

  /** ClearRichPresence. */
  r.delete(
    '/api/v10/users/@me/activities',
    { schema: { summary: 'Clear rich presence (ClearRichPresence)', tags: TAGS, security: BEARER, response: { 204: NoContent } }, config: WRITE },
    async (req, reply) => {
      const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
      await presence.clearActivity(p.applicationId, p.userId);
      reply.code(204);
    },
  );

  /** SetOnlineStatus, through the public user-settings route. */
  r.patch(
    '/api/v10/users/@me/settings',
    {
      schema: { summary: 'Set the online status (SetOnlineStatus); offline is taken as invisible', tags: TAGS, security: BEARER, body: SettingsBody, response: { 200: Type.Object({ status: StatusValue }) } },
      config: WRITE,
    },
    async (req) => {
      const p = requireUserScope(await authenticate(req, ctx.store), 'activities.write');
      await presence.setStatus(p.userId, req.body.status);
      return { status: await presence.chosenStatus(p.userId) };
    },
  );
}
