import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { Limits } from '@social-layer/protocol';
import type { ServerContext } from '../ServerContext.ts';
import { ApiError, Errors } from './ApiError.ts';
import { httpServerOptions } from './connectionLimits.ts';
import { installRateLimits } from './rateLimitHooks.ts';
import { installRouteAccess } from './accessHooks.ts';
import { installUploadBudget } from './uploadBudget.ts';
import { installJsonContentType } from './jsonContentType.ts';
import { lazyRequestLoggerFactory } from '../log/lazyRequestLogger.ts';
import { isClientAbort, RequestLogController } from '../log/RequestLogController.ts';
import { gatewayRoutes } from './routes/gateway.ts';
import { lobbyRoutes } from './routes/lobbies.ts';
import { lobbyChannelLinkingRoutes } from './routes/lobbyChannelLinking.ts';
import { directMessageRoutes } from './routes/dms.ts';
import { inviteRoutes } from './routes/invites.ts';
import { presenceRoutes } from './routes/presence.ts';
import { relationshipRoutes } from './routes/relationships.ts';
import { accountPageRoutes } from './routes/accountPages.ts';
import { oauth2ApiRoutes } from './routes/oauth2Api.ts';
import { oauth2PageRoutes } from './routes/oauth2Pages.ts';
import { partnerSdkRoutes } from './routes/partnerSdk.ts';
import { userRoutes } from './routes/users.ts';
import { applicationProfileRoutes } from './routes/applicationProfiles.ts';
import { avatarRoutes } from './routes/avatars.ts';
import { guildRouteFamily } from './routes/guildRouteFamily.ts';
import { guildVoiceStateRoutes } from './routes/guildVoiceStates.ts';
import { channelMessageRoutes } from './routes/channelMessages.ts';
import { pollRoutes } from './routes/pollRoutes.ts';
import { moderationRouteFamily } from './routes/moderationRouteFamily.ts';
import { privateChannelRoutes } from './routes/privateChannels.ts';
import { applicationRoutes } from './routes/applications.ts';
import { developerPortalRoutes } from './routes/developerPortal.ts';
import { webhookDeliveryRoutes } from './routes/webhookDeliveries.ts';
import { questPortalRoutes, questRoutes } from './routes/quests.ts';
import { skuRoutes } from './routes/skus.ts';
import { entitlementRoutes } from './routes/entitlements.ts';
import { subscriptionRoutes } from './routes/subscriptions.ts';
import { webAppRoutes } from './routes/webApp.ts';
import { sdkDocsRoutes } from './routes/sdkDocs.ts';
import { interactionRoutes } from './routes/interactions.ts';
import { applicationBudgetHook } from './applicationBudget.ts';
import { activityProxy } from '../activities/activityProxy.ts';
import { activityRoutes } from './routes/activities.ts';
import { activityPortalRoutes } from './routes/activityPortal.ts';
import { formErrorOf, registerOpenApi, validatorCompiler } from './schemas/index.ts';

/**
 * What the router refuses before any route or hook runs: a path parameter past its length (a
 * 2,000-digit ID) or a URL that does not decode. Answered 404 in the documented body, as any path
 * that names nothing, never fastify's own body with the URL echoed back.
 */
function frameworkErrors(_err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  void reply.code(404).type('application/json').send(Errors.notFound().body());
}

/** The HTTP API. Request lines are logged by method and route only, never URL or headers. */
export async function createHttpApp(ctx: ServerContext, tls?: { key: string | Buffer; cert: string | Buffer }): Promise<FastifyInstance> {
  // Fastify logs through our pino instance (one stream, one redaction), one debug line per request
  // by route pattern, never by URL (server/src/log/).
  const serverOptions = httpServerOptions();
  // With a certificate (--tls-cert/--tls-key, or development mode's self-signed one) the same
  // listener speaks HTTPS, so the Gateway and the voice gateway upgrade to wss on it too.
  const transport = tls ? { https: { ...serverOptions.http, key: tls.key, cert: tls.cert } } : {};
  const app = Fastify({ loggerInstance: ctx.log as FastifyBaseLogger, childLoggerFactory: lazyRequestLoggerFactory, logController: new RequestLogController(), ...serverOptions, ...transport, bodyLimit: Limits.httpBodyMaxBytes, trustProxy: false, frameworkErrors }) as unknown as FastifyInstance;
  // Before any route: JSON answers say `application/json` with no charset, as the public API does.
  installJsonContentType(app);
  // Before any route: every route gets a budget, keyed on the resolved principal (rateLimitHooks.ts).
  installRateLimits(app, ctx);
  // Then who may call each route (routeAccess.ts): kinds and scopes before the body is read.
  installRouteAccess(app, ctx);
  installUploadBudget(app);
  // Before the API's own hooks: requests to <application_id>.<activity proxy host> are the activity's (issue 17).
  activityProxy(app, ctx);

  // Every route declares its input with TypeBox schemas (schemas/): failures answer 400/50035 with
  // the nested errors tree, path IDs that cannot be IDs their resource's 404 (server/src/schemas/validator.ts).
  // Responses are JSON.stringify'd: response schemas document, they never drop or coerce fields.
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // Before any route: @fastify/swagger builds the OpenAPI document from routes as they register.
  await registerOpenApi(app);

  // JSON bodies: an empty body reads as undefined (the validator then names the missing fields),
  // and a body that does not parse is the documented invalid-JSON error, never a 500.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(Errors.invalidJson(), undefined);
    }
  });

  // Form bodies (OAuth2 token endpoints, the platform's pages) arrive as URLSearchParams, so a
  // handler can see repeated parameters, which OAuth2 forbids (RFC 6749 3.2).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, new URLSearchParams(body as string));
  });

  // CORS for the API: web games call it from their own origin. Every /api route authenticates
  // with a bearer or bot token in a header, never a cookie, so any origin may call it; the
  // cookie-signed pages (sign-in, consent, account) get no CORS headers at all.
  app.addHook('onRequest', async (req, reply) => {
    if (!req.url.startsWith('/api/')) return;
    void reply.header('access-control-allow-origin', '*');
    void reply.header('access-control-expose-headers', 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-RateLimit-Reset-After, X-RateLimit-Bucket, X-RateLimit-Scope, X-RateLimit-Budget, Retry-After');
    if (req.method === 'OPTIONS') {
      void reply
        .header('access-control-allow-methods', 'GET, POST, PUT, PATCH, DELETE')
        .header('access-control-allow-headers', 'Authorization, Content-Type, X-Audit-Log-Reason')
        .header('access-control-max-age', '86400')
        .code(204)
        .send();
    }
  });

  // Applications without production access: their SDK writes share one small budget (issue 9).
  app.addHook('preHandler', applicationBudgetHook(ctx));

  app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
    // OAuth2 endpoints answer in the RFC 6749 shape even when fastify refuses the body type.
    if (req.url.startsWith('/api/') && req.url.includes('/oauth2/') && err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return void reply.code(400).type('application/json').send({ error: 'invalid_request', error_description: 'The body must be application/x-www-form-urlencoded' });
    }
    let apiError: ApiError;
    if (err instanceof ApiError) apiError = err;
    else if (Array.isArray((err as FastifyError).validation)) apiError = formErrorOf((err as FastifyError).validation as never);
    else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') apiError = Errors.tooLarge();
    else if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || err.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
      apiError = Errors.invalidForm({ _errors: [{ code: 'CONTENT_TYPE_INVALID', message: 'Expected Content-Type application/json.' }] });
    } else if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || err instanceof SyntaxError) apiError = Errors.invalidJson();
    else if (isClientAbort(err, req)) {
      // The client went away mid-body: nothing is wrong with the server (issue 9: debug, not error).
      ctx.log.debug({ route: req.routeOptions.url }, 'request aborted');
      apiError = new ApiError(400, 0, 'Request aborted');
    } else if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      // A plugin's refusal of the request (@fastify/static under /docs/api refusing traversal or
      // `%00`): the caller's mistake, answered 404 and logged at debug (issue 9, fix 5).
      ctx.log.debug({ route: req.routeOptions.url, status: err.statusCode, code: err.code }, 'request refused');
      // Over a multipart limit (file size, file or part count) is the body being too large.
      apiError = err.statusCode === 405 ? Errors.methodNotAllowed() : err.statusCode === 413 ? Errors.tooLarge() : Errors.notFound();
    } else {
      ctx.log.error({ err }, 'unhandled error');
      apiError = new ApiError(500, 0, '500: Internal Server Error');
    }
    if (apiError.headers) void reply.headers(apiError.headers);
    void reply.code(apiError.status).type('application/json').send(apiError.body());
  });

  app.setNotFoundHandler((_req, reply) => {
    void reply.code(404).type('application/json').send(Errors.notFound().body());
  });

  gatewayRoutes(app, ctx);
  partnerSdkRoutes(app, ctx);
  userRoutes(app, ctx);
  applicationProfileRoutes(app, ctx);
  avatarRoutes(app, ctx);
  lobbyRoutes(app, ctx);
  lobbyChannelLinkingRoutes(app, ctx);
  relationshipRoutes(app, ctx);
  presenceRoutes(app, ctx);
  inviteRoutes(app, ctx);
  directMessageRoutes(app, ctx);
  accountPageRoutes(app, ctx);
  oauth2PageRoutes(app, ctx);
  oauth2ApiRoutes(app, ctx);
  guildRouteFamily(app, ctx);
  guildVoiceStateRoutes(app, ctx);
  channelMessageRoutes(app, ctx);
  // Poll votes, Get Answer Voters, End Poll: beside the message routes, whose schemas they use.
  pollRoutes(app, ctx);
  // Search Guild Messages, AutoMod, the audit log (issue 11).
  moderationRouteFamily(app, ctx);
  privateChannelRoutes(app, ctx);
  applicationRoutes(app, ctx);
  developerPortalRoutes(app, ctx);
  webhookDeliveryRoutes(app, ctx);
  questRoutes(app, ctx);
  questPortalRoutes(app, ctx);
  // Commerce (issue 14).
  skuRoutes(app, ctx);
  entitlementRoutes(app, ctx);
  subscriptionRoutes(app, ctx);
  interactionRoutes(app, ctx);
  activityRoutes(app, ctx);
  activityPortalRoutes(app, ctx);
  await webAppRoutes(app, ctx);
  await sdkDocsRoutes(app, ctx);
  return app;
}
