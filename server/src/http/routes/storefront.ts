import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../../ServerContext.ts';
import type { Principal } from '../../auth/Principal.ts';
import { CommerceErrors, skuToWire } from '../../commerce/index.ts';
import { Errors } from '../ApiError.ts';
import { authenticate, requireBearer } from '../auth.ts';
import { BEARER, Type, type TypeBoxTypeProvider } from '../schemas/index.ts';
import { tokenActsForApp } from './appActsFor.ts';
import { AppParams, COMMERCE_READ, EntitlementSchema, SkuParams, SkuSchema, TAGS } from './commerceRouteHelpers.ts';

const Storefront = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    test_mode: Type.Boolean({ description: 'The test-mode checkout is on: nobody is charged' }),
    tester: Type.Boolean({ description: 'The caller is the application\'s tester (its owner): a purchase records TEST_MODE_PURCHASE' }),
  },
  { title: 'Storefront' },
);

/**
 * What a player's client needs to shop (ours; the web app's store page, checkout dialog and
 * premium buttons): an application's store header, one SKU by ID, and the caller's own
 * entitlements in an application. Bearer tokens only. A game's token sees its own game; the
 * platform's first-party web app every game (as for GET /applications/{id}/skus).
 */
export function storefrontRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  /** A game's token: its own application only; the first-party web app: any. Otherwise 403 50001. */
  const mayShop = (p: Extract<Principal, { kind: 'bearer' }>, applicationId: string): Promise<boolean> => tokenActsForApp(ctx.store, p.applicationId, applicationId);

  r.get(
    '/api/v10/applications/:applicationId/storefront',
    { schema: { summary: 'An application\'s store header for players (ours): name, description, test mode', tags: TAGS, security: BEARER, params: AppParams, response: { 200: Storefront } }, config: COMMERCE_READ },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store));
      const appId = req.params.applicationId;
      if (!(await mayShop(p, appId))) throw Errors.missingAccess();
      const row = await ctx.store.applications.get(appId);
      if (!row) throw Errors.unknownApplication();
      const testMode = await ctx.commerce.checkout.testMode(appId);
      return { id: row.id, name: row.name, description: row.description ?? '', test_mode: testMode, tester: testMode && row.owner_id === p.userId };
    },
  );

  r.get(
    '/api/v10/skus/:skuId',
    { schema: { summary: 'One SKU (ours; premium buttons and the checkout dialog name a SKU by ID)', tags: TAGS, security: BEARER, params: SkuParams, response: { 200: SkuSchema } }, config: COMMERCE_READ },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store));
      const sku = await ctx.store.skus.get(req.params.skuId);
      // Another game's SKU reads as unknown, as in the checkout.
      if (!sku || !(await mayShop(p, sku.application_id))) throw CommerceErrors.unknownSku();
      return skuToWire(sku);
    },
  );

  r.get(
    '/api/v10/users/@me/applications/:applicationId/entitlements',
    {
      schema: {
        summary: 'My active entitlements in an application (not deleted, not ended, not consumed)',
        tags: TAGS,
        security: BEARER,
        params: AppParams,
        response: { 200: Type.Array(EntitlementSchema) },
      },
      config: COMMERCE_READ,
    },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store));
      if (!(await mayShop(p, req.params.applicationId))) throw Errors.missingAccess();
      return ctx.commerce.entitlementsOf(req.params.applicationId, { userId: p.userId });
    },
  );
}
