import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { currentWebUser, pageHeaders } from '../../accounts/webSession.ts';
import { messagePage } from '../../pages/accountPages.ts';
import { webhookDeliveriesPage } from '../../pages/developerPortalWebhooks.ts';
import type { ServerContext } from '../../ServerContext.ts';

const READ = { rateLimit: { bucket: 'pages.developers', limit: 300, windowMs: 60_000 } };

/**
 * The portal's list of recent webhook deliveries of one of the signed-in developer's
 * applications. "Send again" posts to the portal's webhooks section (developerPortalWebhooks.ts).
 */
export function webhookDeliveryRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get('/developers/applications/:id/webhooks', { schema: { params: Type.Object({ id: Type.String({ maxLength: 32 }) }) }, config: READ }, async (req, reply) => {
    const me = await currentWebUser(ctx, req);
    if (!me) return reply.redirect(`/login?next=${encodeURIComponent(req.url.split('#')[0]!)}`, 303);
    const row = await ctx.applications.getOwned(req.params.id, me.user.id).catch(() => undefined);
    if (!row) return pageHeaders(reply).code(404).send(messagePage('Unknown application', 'There is no such application among yours.'));
    const deliveries = await ctx.webhooks.recentDeliveries(row.id, 100);
    return pageHeaders(reply).send(webhookDeliveriesPage({ app: { id: row.id, name: row.name }, csrf: me.csrf, deliveries }));
  });
}
