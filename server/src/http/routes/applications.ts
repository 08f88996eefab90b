import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { imageBytes } from '../../applications/applicationImages.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { ApiError, Errors } from '../ApiError.ts';
import { authenticate, requireBot } from '../auth.ts';

const READ = { rateLimit: { bucket: 'applications.me.read', limit: 60, windowMs: 10_000 } };
const WRITE = { rateLimit: { bucket: 'applications.me.write', limit: 10, windowMs: 10_000 } };
const RESET = { rateLimit: { bucket: 'applications.bot.reset', limit: 5, windowMs: 60_000 } };
const ICONS = { rateLimit: { bucket: 'app-icons', limit: 120, windowMs: 10_000 } };

const UserSchema = Type.Object({
  id: Type.String(),
  username: Type.String(),
  global_name: Type.Union([Type.String(), Type.Null()]),
  avatar: Type.Union([Type.String(), Type.Null()]),
  discriminator: Type.String(),
  bot: Type.Optional(Type.Boolean()),
  is_provisional: Type.Optional(Type.Boolean()),
});

const InstallParams = Type.Object({
  scopes: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 20 }),
  permissions: Type.String({ pattern: '^[0-9]{1,20}$' }),
});
const IntegrationTypesConfig = Type.Record(Type.String({ pattern: '^[0-9]+$' }), Type.Object({ oauth2_install_params: Type.Optional(InstallParams) }));

/** The public APIApplication fields we keep, plus `public_client` and `social_sdk` (ours). */
export const ApplicationSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  approximate_guild_count: Type.Integer({ minimum: 0 }),
  approximate_user_install_count: Type.Integer({ minimum: 0 }),
  icon: Type.Union([Type.String(), Type.Null()]),
  description: Type.String(),
  type: Type.Null(),
  bot_public: Type.Boolean(),
  bot_require_code_grant: Type.Boolean(),
  bot: Type.Optional(UserSchema),
  owner: Type.Optional(UserSchema),
  team: Type.Null(),
  flags: Type.Integer(),
  flags_new: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  tags: Type.Optional(Type.Array(Type.String())),
  integration_types_config: Type.Optional(IntegrationTypesConfig),
  public_client: Type.Boolean(),
  social_sdk: Type.Object({ enabled: Type.Boolean(), approval: Type.Union([Type.Literal('pre_approval'), Type.Literal('requested'), Type.Literal('approved')]) }),
  // Webhook events (issue 15); event_webhooks_last_error is ours (why the platform disabled the URL).
  verify_key: Type.Optional(Type.String()),
  event_webhooks_url: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  event_webhooks_status: Type.Optional(Type.Integer()),
  event_webhooks_types: Type.Optional(Type.Array(Type.String())),
  event_webhooks_last_error: Type.Optional(Type.String()),
  // Interactions (issue 13): the signed-POST endpoint, PING-verified.
  interactions_endpoint_url: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  role_connections_verification_url: Type.Null(),
  approximate_user_authorization_count: Type.Integer({ minimum: 0 }),
  explicit_content_filter: Type.Literal(0),
  eligible_oauth2_scopes: Type.Array(Type.String()),
});

/**
 * RESTPatchCurrentApplicationJSONBody's fields that we implement, plus `name`, `redirect_uris`
 * and `public_client` (the public API edits those only in its portal). Other fields are ignored,
 * as the public API ignores what it does not know; the fields later slices implement
 * (interactions_endpoint_url, event_webhooks_url, ...) join here.
 */
export const ApplicationPatchSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 2, maxLength: 100 })),
    description: Type.Optional(Type.String({ maxLength: 400 })),
    icon: Type.Optional(Type.Union([Type.String({ maxLength: 64 * 1024 }), Type.Null()])),
    flags: Type.Optional(Type.Integer({ minimum: 0, maximum: 4294967295 })),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 20 }), { maxItems: 5 })),
    integration_types_config: Type.Optional(IntegrationTypesConfig),
    redirect_uris: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { maxItems: 10 })),
    public_client: Type.Optional(Type.Boolean()),
    // Webhook events (issue 15): the URL is PINGed before it is saved; status 3 is the platform's.
    event_webhooks_url: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
    event_webhooks_status: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
    event_webhooks_types: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 20 })),
    // Interactions (issue 13): verified with PINGs (a forged one refused, a signed one answered type 1) before it is saved.
    interactions_endpoint_url: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
  },
  { additionalProperties: true },
);

/**
 * The application a Bot token belongs to: read and edit it (`/applications/@me`), reset its bot
 * token, and its icon images. The developer portal offers the same edits to signed-in owners.
 */
export function applicationRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/api/v10/applications/@me', { schema: { response: { 200: ApplicationSchema } }, config: READ }, async (req) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    return ctx.applications.toWire(await ctx.applications.get(bot.applicationId));
  });

  r.patch('/api/v10/applications/@me', { schema: { body: ApplicationPatchSchema, response: { 200: ApplicationSchema } }, config: WRITE }, async (req) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    if (req.body === undefined || req.body === null) throw Errors.invalidForm({ _errors: [{ code: 'DICT_TYPE_CONVERT', message: 'Only dictionaries may be used in a DictType.' }] });
    return ctx.applications.toWire(await ctx.applications.update(bot.applicationId, req.body));
  });

  // The same application by its ID (Get Application / Edit Application): the Bot token's own only;
  // another application's ID is 10002, as for the bot reset below. `@me` percent-encoded lands here too.
  const own = (id: string, applicationId: string) => {
    if (id !== '@me' && id !== applicationId) throw Errors.unknownApplication();
  };
  const AppParams = Type.Object({ application_id: Type.String({ maxLength: 20 }) });
  r.get('/api/v10/applications/:application_id', { schema: { params: AppParams, response: { 200: ApplicationSchema } }, config: READ }, async (req) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    own(req.params.application_id, bot.applicationId);
    return ctx.applications.toWire(await ctx.applications.get(bot.applicationId));
  });
  r.patch('/api/v10/applications/:application_id', { schema: { params: AppParams, body: ApplicationPatchSchema, response: { 200: ApplicationSchema } }, config: WRITE }, async (req) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    own(req.params.application_id, bot.applicationId);
    if (req.body === undefined || req.body === null) throw Errors.invalidForm({ _errors: [{ code: 'DICT_TYPE_CONVERT', message: 'Only dictionaries may be used in a DictType.' }] });
    return ctx.applications.toWire(await ctx.applications.update(bot.applicationId, req.body));
  });
  // Get Current Bot Application Information: the older path of GET /applications/@me.
  r.get('/api/v10/oauth2/applications/@me', { schema: { response: { 200: ApplicationSchema } }, config: READ }, async (req) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    return ctx.applications.toWire(await ctx.applications.get(bot.applicationId));
  });

  // The public route takes the application's ID; `@me` means the Bot token's own application.
  r.post(
    '/api/v10/applications/:applicationId/bot/reset',
    { schema: { params: Type.Object({ applicationId: Type.String({ maxLength: 20 }) }), response: { 200: Type.Object({ token: Type.String() }) } }, config: RESET },
    async (req) => {
      const bot = requireBot(await authenticate(req, ctx.store));
      const { applicationId } = req.params;
      if (applicationId !== '@me' && applicationId !== bot.applicationId) throw Errors.unknownApplication();
      return { token: await ctx.applications.resetBotToken(bot.applicationId) };
    },
  );

  // Icons at the public CDN's path shape; the hash in the name changes with the image.
  r.get(
    '/app-icons/:applicationId/:file',
    { schema: { params: Type.Object({ applicationId: Type.String({ pattern: '^[0-9]{1,20}$' }), file: Type.String({ pattern: '^[0-9a-f]{32}\\.(png|jpg|jpeg|gif|webp)$' }) }) }, config: ICONS },
    async (req, reply) => {
      const row = await ctx.store.applications.get(req.params.applicationId);
      if (!row?.icon || !row.icon_data || !req.params.file.startsWith(`${row.icon}.`)) throw new ApiError(404, 0, '404: Not Found');
      const { contentType, bytes } = imageBytes(row.icon_data);
      return reply.header('content-type', contentType).header('cache-control', 'public, max-age=31536000, immutable').header('x-content-type-options', 'nosniff').send(bytes);
    },
  );
}
