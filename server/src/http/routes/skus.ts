import type { FastifyInstance } from 'fastify';
import { currentWebUser, pageHeaders } from '../../accounts/webSession.ts';
import { messagePage } from '../../pages/accountPages.ts';
import { skuListPage } from '../../pages/developerPortalSkus.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { CommerceErrors, SkuFlags, SkuType } from '../../commerce/index.ts';
import { ApiError } from '../ApiError.ts';
import { authenticate, requireBearer } from '../auth.ts';
import { tokenActsForApp } from './appActsFor.ts';
import { BEARER, BEARER_OR_BOT as BOT_OR_BEARER, HtmlPage, Nullable, Redirect, Type, type TypeBoxTypeProvider } from '../schemas/index.ts';
import { storefrontRoutes } from './storefront.ts';
import { AppParams, COMMERCE_READ, EntitlementSchema, requireOwnBot, SkuParams, SkuSchema, SubscriptionSchema, TAGS } from './commerceRouteHelpers.ts';

const CHECKOUT = { rateLimit: { bucket: 'commerce.checkout', limit: 10, windowMs: 10_000 } };

const PAGE_READ = { rateLimit: { bucket: 'pages.developers', limit: 300, windowMs: 60_000 } };

/** SKUs of an application (issue 14): the public list, and the portal's list page. */
export function skuRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  // The players' side of the store (the web app's store page and checkout dialog).
  storefrontRoutes(app, ctx);

  r.get(
    '/api/v10/applications/:applicationId/skus',
    { schema: { summary: 'The application\'s SKUs (its bot: all; a player\'s token: those on sale)', tags: TAGS, security: BOT_OR_BEARER, params: AppParams, response: { 200: Type.Array(SkuSchema) } }, config: COMMERCE_READ },
    async (req) => {
      const p = await authenticate(req, ctx.store);
      if (p.kind === 'bot') {
        requireOwnBot(p, req.params.applicationId);
        return ctx.commerce.listSkus(req.params.applicationId);
      }
      // A player (the game's own token, or the platform's web app store page) sees what is on sale.
      if (!(await tokenActsForApp(ctx.store, p.applicationId, req.params.applicationId))) throw new ApiError(403, 50001, 'Missing Access');
      return (await ctx.commerce.listSkus(req.params.applicationId)).filter((s) => (s.flags & SkuFlags.Available) !== 0);
    },
  );

  r.post(
    '/api/v10/skus/:skuId/checkout',
    {
      schema: {
        summary: 'Buy a SKU (ours: the checkout; test mode or the configured payment provider)',
        tags: TAGS,
        security: BEARER,
        params: SkuParams,
        response: { 200: Type.Object({ entitlement: EntitlementSchema, subscription: Type.Optional(SubscriptionSchema), payment: Type.Object({ provider: Type.String(), reference: Nullable(Type.String()) }) }, { title: 'CheckoutResult' }) },
      },
      config: CHECKOUT,
    },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store));
      // A game's token buys only that game's SKUs; the platform's own web app may buy any.
      const sku = await ctx.store.skus.get(req.params.skuId);
      if (sku && !(await tokenActsForApp(ctx.store, p.applicationId, sku.application_id))) throw CommerceErrors.unknownSku();
      return ctx.commerce.checkout.checkout(p.userId, req.params.skuId);
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
      return pageHeaders(reply).send(skuListPage({ app: { id: row.id, name: row.name }, csrf: me.csrf, testMode: await ctx.commerce.checkout.testMode(row.id), skus: (await ctx.commerce.listSkus(row.id)).filter((s) => s.type !== SkuType.SubscriptionGroup) }));
    },
  );
}
