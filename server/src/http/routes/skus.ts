import type { FastifyInstance } from 'fastify';
import { currentWebUser, pageHeaders } from '../../accounts/webSession.ts';
import { messagePage } from '../../pages/accountPages.ts';
import { skuListPage } from '../../pages/developerPortalSkus.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { authenticate } from '../auth.ts';
import { BOT, HtmlPage, Redirect, Type, type TypeBoxTypeProvider } from '../schemas/index.ts';
import { AppParams, COMMERCE_READ, requireOwnBot, SkuSchema, TAGS } from './commerceRouteHelpers.ts';

const PAGE_READ = { rateLimit: { bucket: 'pages.developers', limit: 300, windowMs: 60_000 } };

/** SKUs of an application (issue 14): the public list, and the portal's list page. */
export function skuRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/api/v10/applications/:applicationId/skus',
    { schema: { summary: 'The application\'s SKUs', tags: TAGS, security: BOT, params: AppParams, response: { 200: Type.Array(SkuSchema) } }, config: COMMERCE_READ },
    async (req) => {
      requireOwnBot(await authenticate(req, ctx.store), req.params.applicationId);
      return ctx.commerce.listSkus(req.params.applicationId);
    },
  );

  r.get(
    '/developers/applications/:id/skus',
    { schema: { summary: 'Developer portal: the application\'s SKUs', tags: ['pages'], params: Type.Object({ id: Type.String({ maxLength: 32 }) }), response: { 200: HtmlPage('SKU list'), 303: Redirect('Not signed in: to /login') } }, config: PAGE_READ },
    async (req, reply) => {
      const me = await currentWebUser(ctx, req);
      if (!me) return reply.redirect(`/login?next=${encodeURIComponent(req.url.split('#')[0]!)}`, 303);
      const row = await ctx.applications.getOwned(req.params.id, me.user.id).catch(() => undefined);
      if (!row) return pageHeaders(reply).code(404).send(messagePage('Unknown application', 'There is no such application among yours.'));
      return pageHeaders(reply).send(skuListPage({ app: { id: row.id, name: row.name }, skus: await ctx.commerce.listSkus(row.id) }));
    },
  );
}
