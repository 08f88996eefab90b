import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS } from '../../messages/attachments.ts';
import { readMultipartBody } from '../multipartBody.ts';
import type { Upload } from '../../interactions/InteractionMessages.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { ApiError } from '../ApiError.ts';
import { authenticate, isFirstParty } from '../auth.ts';
import { CallbackType } from '../../interactions/interactionWire.ts';
import { BEARER, NoContent, OptionalBody, QueryBool, Type, type TypeBoxTypeProvider, isTrue, parseWith } from '../schemas/index.ts';
import type { InteractionService, Invoker } from '../../interactions/InteractionService.ts';
import { applicationCommandRoutes } from './applicationCommands.ts';

const TAGS = ['Interactions'];
/** Interaction endpoints are exempt from the global limit in the public API; ours is a generous per-caller budget. */
const CALLBACK = { rateLimit: { bucket: 'interactions.callback', limit: 100, windowMs: 1_000 } };
const INVOKE = { rateLimit: { bucket: 'interactions.invoke', limit: 20, windowMs: 1_000 } };

const MessageSchema = Type.Object({ id: Type.String(), channel_id: Type.String() }, { title: 'Message', additionalProperties: true });
const Anything = Type.Unknown({ description: 'Checked by the interactions service (50035 with field paths)' });
/** What a user's client sends to invoke (the public client's body); `data` is checked by the service. */
const InvokeBody = Type.Object({
  type: Type.Integer({ minimum: 2, maximum: 5 }),
  application_id: Type.Optional(Type.String({ maxLength: 20 })),
  guild_id: Type.Optional(Type.String({ maxLength: 20 })),
  channel_id: Type.String({ maxLength: 20 }),
  message_id: Type.Optional(Type.String({ maxLength: 20 })),
  nonce: Type.Optional(Type.String({ maxLength: 64 })),
  session_id: Type.Optional(Type.String({ maxLength: 64 })),
  data: Type.Optional(Type.Unknown({ description: 'The command, component or modal data' })),
});
const TokenParams = Type.Object({ applicationId: Type.String({ maxLength: 20 }), token: Type.String({ maxLength: 200 }) });
const TokenMessageParams = Type.Object({ applicationId: Type.String({ maxLength: 20 }), token: Type.String({ maxLength: 200 }), messageId: Type.String({ maxLength: 20 }) });

/** The body and files of a token route or an invoke (the shared multipart reader). */
async function bodyAndFiles(req: FastifyRequest, tempDir: string | undefined): Promise<{ body: unknown; uploads: Upload[] }> {
  const { body, files } = await readMultipartBody(req, tempDir ? { tempDir } : {});
  return { body, uploads: files };
}

/**
 * A signed-in user of the web app (the first-party application's token with the guilds scope), as
 * the public client invokes. A third-party application's bearer token is refused (50001): invoking
 * acts as the user towards other applications' bots, which only the platform's own client may do.
 */
async function invoker(req: FastifyRequest, ctx: ServerContext): Promise<Invoker> {
  const p = await authenticate(req, ctx.store);
  if (p.kind !== 'bearer') throw new ApiError(403, 20001, 'Bots cannot use this endpoint');
  if (!p.scopes.includes('guilds')) throw new ApiError(403, 50001, 'Missing Access: the token lacks the guilds scope');
  if (!(await isFirstParty(ctx.store, p.applicationId))) throw new ApiError(403, 50001, 'Missing Access: only the web app invokes interactions');
  const locale = typeof req.headers['x-discord-locale'] === 'string' ? req.headers['x-discord-locale'] : undefined;
  return { userId: p.userId, applicationId: p.applicationId, ...(locale && /^[a-zA-Z-]{2,10}$/.test(locale) ? { locale } : {}) };
}

/** Application commands and interactions (issue 13). */
export function interactionRoutes(app: FastifyInstance, ctx: ServerContext): void {
  applicationCommandRoutes(app, ctx);
  const s = ctx.interactions as InteractionService;
  if (!s) return;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  // The user's side: invoke a command, a component or a modal submit (the public client's route), and the picker's index.
  r.get('/api/v10/channels/:channelId/application-command-index', {
    schema: { summary: 'Commands the user may invoke in this channel (the web app\'s picker)', tags: TAGS, security: BEARER, params: Type.Object({ channelId: Type.String({ maxLength: 20 }) }), response: { 200: Type.Object({ application_commands: Type.Array(Type.Object({}, { additionalProperties: true })) }) } },
    config: INVOKE,
  }, async (req) => ({ application_commands: (await s.available((await invoker(req, ctx)).userId, req.params.channelId)) as object[] }));

  // The application's side: no Authorization, the token is the credential (public routes).
  // The routes an application answers with may carry files (multipart `payload_json` + `files[n]`,
  // as discord.js sends them); the parser lives in this scope only.
  void app.register(async (scope) => {
    await scope.register(multipart, {
      throwFileSizeLimit: false,
      limits: { fileSize: MAX_ATTACHMENT_BYTES + 1, files: MAX_ATTACHMENTS, fields: 4, fieldSize: 256 * 1024, parts: MAX_ATTACHMENTS + 4, headerPairs: 50 },
    });
    const m = scope.withTypeProvider<TypeBoxTypeProvider>();
    m.post('/api/v10/interactions', {
      schema: {
        summary: 'Invoke an interaction as a signed-in user (command, context menu, component, modal submit, autocomplete)',
        tags: TAGS,
        security: BEARER,
        body: OptionalBody(InvokeBody),
        consumes: ['application/json', 'multipart/form-data'],
        response: { 200: Type.Object({ id: Type.String(), nonce: Type.Union([Type.String(), Type.Null()]) }) },
      },
      config: INVOKE,
    }, async (req) => {
      const who = await invoker(req, ctx);
      const { body, uploads } = await bodyAndFiles(req, ctx.dataDir);
      return s.invoke(who, parseWith(InvokeBody, body) as never, uploads);
    });
    m.post('/api/v10/interactions/:interactionId/:token/callback', {
      schema: {
        summary: 'Create Interaction Response',
        description: 'Callback types 1, 4 to 9 and 12. Type 10 (PREMIUM_REQUIRED) is **deprecated**: it still works, answered with a `Deprecation: true` header; answer with a premium button (style 6) instead.',
        tags: TAGS,
        params: Type.Object({ interactionId: Type.String({ maxLength: 20 }), token: Type.String({ maxLength: 200 }) }),
        querystring: Type.Object({ with_response: Type.Optional(QueryBool()) }),
        body: Anything,
        consumes: ['application/json', 'multipart/form-data'],
        response: { 200: Type.Object({ interaction: Type.Object({}, { additionalProperties: true }), resource: Type.Optional(Type.Object({}, { additionalProperties: true })) }), 204: NoContent },
      },
      config: CALLBACK,
    }, async (req, reply) => {
      // The token first (one indexed read): a bad token never gets its upload buffered.
      await s.checkCallbackToken(req.params.interactionId, req.params.token);
      const { body, uploads } = await bodyAndFiles(req, ctx.dataDir);
      const out = await s.callback(req.params.interactionId, req.params.token, body, isTrue(req.query.with_response), uploads);
      if ((body as { type?: unknown } | undefined)?.type === CallbackType.PremiumRequired) {
        // Deprecated, still served: said to the caller and in the log. `true` as the Deprecation
        // header's drafts had it: the date it took effect, which RFC 9745 wants, is not documented.
        void reply.header('deprecation', 'true').header('link', '<https://discord.com/developers/docs/monetization/implementing-app-subscriptions>; rel="deprecation"');
        req.log.warn({ route: req.routeOptions.url }, 'PREMIUM_REQUIRED (10) is deprecated: answer with a premium button (style 6)');
      }
      return out ? reply.code(200).send(out as { interaction: object }) : reply.code(204).send();
    });

    m.post('/api/v10/webhooks/:applicationId/:token', {
      schema: { summary: 'Create Followup Message (Execute Webhook with an interaction token)', tags: TAGS, params: TokenParams, querystring: Type.Object({ wait: Type.Optional(QueryBool()), with_components: Type.Optional(QueryBool()), thread_id: Type.Optional(Type.String({ maxLength: 20 })) }), body: Anything, consumes: ['application/json', 'multipart/form-data'], response: { 200: MessageSchema, 204: NoContent } },
      config: CALLBACK,
    }, async (req, reply) => {
      await s.checkWebhookToken(req.params.applicationId, req.params.token);
      const { body, uploads } = await bodyAndFiles(req, ctx.dataDir);
      const m = await s.followup(req.params.applicationId, req.params.token, body, uploads);
      return req.query.wait !== undefined && isTrue(req.query.wait) ? reply.code(200).send(m) : reply.code(204).send();
    });
    m.patch('/api/v10/webhooks/:applicationId/:token/messages/:messageId', {
      schema: { summary: 'Edit Original Interaction Response (a poll may be added to a deferred one) / Edit Followup Message', tags: TAGS, params: TokenMessageParams, querystring: Type.Object({ with_components: Type.Optional(QueryBool()), thread_id: Type.Optional(Type.String({ maxLength: 20 })) }), body: Anything, consumes: ['application/json', 'multipart/form-data'], response: { 200: MessageSchema } },
      config: CALLBACK,
    }, async (req) => {
      await s.checkWebhookToken(req.params.applicationId, req.params.token);
      const { body, uploads } = await bodyAndFiles(req, ctx.dataDir);
      return s.editMessage(req.params.applicationId, req.params.token, req.params.messageId, body, uploads);
    });
  });

  r.get('/api/v10/webhooks/:applicationId/:token/messages/:messageId', {
    schema: { summary: 'Get Original Interaction Response (@original) / Get Followup Message', tags: TAGS, params: TokenMessageParams, response: { 200: MessageSchema } },
    config: CALLBACK,
  }, async (req) => s.getMessage(req.params.applicationId, req.params.token, req.params.messageId));
  r.delete('/api/v10/webhooks/:applicationId/:token/messages/:messageId', {
    schema: { summary: 'Delete Original Interaction Response / Delete Followup Message', tags: TAGS, params: TokenMessageParams, response: { 204: NoContent } },
    config: CALLBACK,
  }, async (req, reply) => {
    await s.deleteMessage(req.params.applicationId, req.params.token, req.params.messageId);
    return reply.code(204).send();
  });
}
