import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../../ServerContext.ts';
import type { Principal } from '../../auth/Principal.ts';
import { authenticate, isFirstParty, requireBearer, requireBot } from '../auth.ts';
import { BEARER, BOT, IdParam, Snowflake, Type, type TypeBoxTypeProvider } from '../schemas/index.ts';
import { COMMERCE_READ, COMMERCE_WRITE, PageLimit, SkuParams, SubscriptionParams, SubscriptionSchema, TAGS } from './commerceRouteHelpers.ts';

const ListQuery = Type.Object({
  before: Type.Optional(Snowflake('Subscriptions before this ID')),
  after: Type.Optional(Snowflake('Subscriptions after this ID')),
  limit: PageLimit(100, 50),
  user_id: Type.Optional(Snowflake('Only this user\'s subscriptions')),
});

/**
 * Subscriptions of a SKU (issue 14), for the application's bot. The SKU names the application:
 * another application's SKU answers 10027 as an unknown one does.
 */
export function subscriptionRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/api/v10/skus/:skuId/subscriptions',
    { schema: { summary: 'Subscriptions of a SKU', tags: TAGS, security: BOT, params: SkuParams, querystring: ListQuery, response: { 200: Type.Array(SubscriptionSchema) } }, config: COMMERCE_READ },
    async (req) => {
      const bot = requireBotApp(await authenticate(req, ctx.store));
      const q = req.query;
      return ctx.commerce.listSubscriptions(bot, req.params.skuId, {
        ...(q.user_id !== undefined ? { userId: q.user_id } : {}),
        ...(q.before !== undefined ? { before: q.before } : {}),
        ...(q.after !== undefined ? { after: q.after } : {}),
        ...(q.limit !== undefined ? { limit: q.limit } : {}),
      });
    },
  );

  r.get(
    '/api/v10/skus/:skuId/subscriptions/:subscriptionId',
    { schema: { summary: 'One subscription', tags: TAGS, security: BOT, params: SubscriptionParams, response: { 200: SubscriptionSchema } }, config: COMMERCE_READ },
    async (req) => {
      const bot = requireBotApp(await authenticate(req, ctx.store));
      return ctx.commerce.getSubscription(bot, req.params.skuId, req.params.subscriptionId);
    },
  );

  userSubscriptionRoutes(app, ctx);
}

/** The user's own subscriptions (ours: the web app's subscriptions page uses them). */
export function userSubscriptionRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/api/v10/users/@me/subscriptions',
    { schema: { summary: 'My subscriptions (ours): every game\'s for the web app, one game\'s for its token', tags: TAGS, security: BEARER, response: { 200: Type.Array(SubscriptionSchema) } }, config: COMMERCE_READ },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store));
      const firstParty = await isFirstParty(ctx.store, p.applicationId);
      return ctx.commerce.userSubscriptions(p.userId, firstParty ? undefined : p.applicationId);
    },
  );

  r.post(
    '/api/v10/users/@me/subscriptions/:subscriptionId/cancel',
    {
      schema: { summary: 'Cancel one of my subscriptions (ours): ENDING until the period runs out', tags: TAGS, security: BEARER, params: Type.Object({ subscriptionId: IdParam({ code: 0, message: 'Unknown Subscription' }) }), response: { 200: SubscriptionSchema } },
      config: COMMERCE_WRITE,
    },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store));
      return ctx.commerce.cancelSubscription(p.userId, req.params.subscriptionId);
    },
  );
}

function requireBotApp(p: Principal): string {
  return requireBot(p).applicationId;
}
