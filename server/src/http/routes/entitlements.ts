import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../../ServerContext.ts';
import { authenticate } from '../auth.ts';
import { BOT, Choice, isTrue, NoContent, QueryBool, Snowflake, Type, type TypeBoxTypeProvider } from '../schemas/index.ts';
import { AppParams, COMMERCE_READ, COMMERCE_WRITE, EntitlementParams, EntitlementSchema, PageLimit, requireOwnBot, TAGS } from './commerceRouteHelpers.ts';

const ListQuery = Type.Object({
  user_id: Type.Optional(Snowflake('Only this user\'s entitlements')),
  sku_ids: Type.Optional(Type.String({ maxLength: 2100, pattern: '^[0-9]{1,20}(,[0-9]{1,20}){0,99}$', description: 'Comma-separated SKU IDs' })),
  before: Type.Optional(Snowflake('Entitlements before this ID')),
  after: Type.Optional(Snowflake('Entitlements after this ID')),
  limit: PageLimit(100, 100),
  guild_id: Type.Optional(Snowflake('Only this guild\'s entitlements')),
  exclude_ended: Type.Optional(QueryBool('Leave out entitlements that have ended; default false')),
  exclude_deleted: Type.Optional(QueryBool('Leave out deleted entitlements; default true')),
});

const CreateTest = Type.Object({
  sku_id: Snowflake('The SKU to grant'),
  owner_id: Snowflake('The guild or user ID'),
  owner_type: Choice([1, 2] as const, '1 guild subscription, 2 user subscription'),
});

/**
 * Entitlements (issue 14): the public list with its filters, get one, test entitlements
 * create/delete, and consume. Only the application's own bot; refusals write nothing.
 */
export function entitlementRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/api/v10/applications/:applicationId/entitlements',
    { schema: { summary: 'The application\'s entitlements', tags: TAGS, security: BOT, params: AppParams, querystring: ListQuery, response: { 200: Type.Array(EntitlementSchema) } }, config: COMMERCE_READ },
    async (req) => {
      requireOwnBot(await authenticate(req, ctx.store), req.params.applicationId);
      const q = req.query;
      return ctx.commerce.listEntitlements(req.params.applicationId, {
        ...(q.user_id !== undefined ? { userId: q.user_id } : {}),
        ...(q.sku_ids !== undefined ? { skuIds: q.sku_ids.split(',') } : {}),
        ...(q.guild_id !== undefined ? { guildId: q.guild_id } : {}),
        ...(q.before !== undefined ? { before: q.before } : {}),
        ...(q.after !== undefined ? { after: q.after } : {}),
        ...(q.limit !== undefined ? { limit: q.limit } : {}),
        ...(q.exclude_ended !== undefined ? { excludeEnded: isTrue(q.exclude_ended) } : {}),
        ...(q.exclude_deleted !== undefined ? { excludeDeleted: isTrue(q.exclude_deleted) } : {}),
      });
    },
  );

  r.get(
    '/api/v10/applications/:applicationId/entitlements/:entitlementId',
    { schema: { summary: 'One entitlement', tags: TAGS, security: BOT, params: EntitlementParams, response: { 200: EntitlementSchema } }, config: COMMERCE_READ },
    async (req) => {
      requireOwnBot(await authenticate(req, ctx.store), req.params.applicationId);
      return ctx.commerce.getEntitlement(req.params.applicationId, req.params.entitlementId);
    },
  );

  r.post(
    '/api/v10/applications/:applicationId/entitlements',
    { schema: { summary: 'Create a test entitlement', tags: TAGS, security: BOT, params: AppParams, body: CreateTest, response: { 200: EntitlementSchema } }, config: COMMERCE_WRITE },
    async (req) => {
      requireOwnBot(await authenticate(req, ctx.store), req.params.applicationId);
      return ctx.commerce.createTestEntitlement(req.params.applicationId, { skuId: req.body.sku_id, ownerId: req.body.owner_id, ownerType: req.body.owner_type });
    },
  );

  r.delete(
    '/api/v10/applications/:applicationId/entitlements/:entitlementId',
    { schema: { summary: 'Delete a test entitlement', tags: TAGS, security: BOT, params: EntitlementParams, response: { 204: NoContent } }, config: COMMERCE_WRITE },
    async (req, reply) => {
      requireOwnBot(await authenticate(req, ctx.store), req.params.applicationId);
      await ctx.commerce.deleteTestEntitlement(req.params.applicationId, req.params.entitlementId);
      return reply.code(204).send();
    },
  );

  r.post(
    '/api/v10/applications/:applicationId/entitlements/:entitlementId/consume',
    { schema: { summary: 'Consume a one-time purchase (consumable SKUs only)', tags: TAGS, security: BOT, params: EntitlementParams, response: { 204: NoContent } }, config: COMMERCE_WRITE },
    async (req, reply) => {
      requireOwnBot(await authenticate(req, ctx.store), req.params.applicationId);
      await ctx.commerce.consume(req.params.applicationId, req.params.entitlementId);
      return reply.code(204).send();
    },
  );
}
