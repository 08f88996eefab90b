import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateClient } from '../../oauth2/clientAuth.ts';
import { OAuthError, OAuthErrors } from '../../oauth2/OAuthError.ts';
import { GRANT_DEVICE_CODE, GRANT_TOKEN_EXCHANGE } from '../../oauth2/OAuthService.ts';
import { KNOWN_SCOPES } from '../../oauth2/scopes.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { userToWire } from '../../storage/UserRepo.ts';
import { ApiError, Errors } from '../ApiError.ts';
import { authenticate, requireBearer, requireBot } from '../auth.ts';
import { object, parse, snowflake } from '../validate.ts';
import { userTopic } from '../../events/EventBus.ts';
import { AUTHORIZE_REQUEST_EVENT } from '@social-layer/protocol';

// Client-authenticated (Basic or form): keyed on the client address, the Authorization header ignored (RateLimiter.ts).
const TOKEN_LIMIT = { config: { rateLimit: { bucket: 'oauth2.token', limit: 120, windowMs: 60_000, key: 'address' as const } } };
const KEYS_LIMIT = { config: { rateLimit: { bucket: 'oauth2.keys', limit: 60, windowMs: 10_000, key: 'address' as const } } };

/**
 * Token, revocation and device endpoints take only application/x-www-form-urlencoded
 * (protocols.md 2.7) and answer in the RFC 6749 shape; responses are never cached.
 */
async function oauthEndpoint(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply, run: (form: URLSearchParams) => Promise<unknown>): Promise<unknown> {
  void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  try {
    const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded' || !(req.body instanceof URLSearchParams)) {
      throw OAuthErrors.invalidRequest('The body must be application/x-www-form-urlencoded');
    }
    const out = await run(req.body);
    logEndpoint(ctx, req, 200);
    return reply.code(200).type('application/json').send(out ?? {});
  } catch (caught) {
    // A platform error inside a grant (530017 on a merge, say) keeps its code in the OAuth2 shape.
    const err = caught instanceof ApiError && caught.status < 500 ? new OAuthError(caught.status === 401 ? 400 : caught.status, 'invalid_grant', caught.message, caught.code || undefined) : caught;
    if (!(err instanceof OAuthError)) throw err;
    logEndpoint(ctx, req, err.status, err);
    if (err.headers) void reply.headers(err.headers);
    return reply.code(err.status).type('application/json').send(err.body());
  }
}

const LOGGED_GRANTS = new Set(['authorization_code', 'refresh_token', 'client_credentials', GRANT_DEVICE_CODE, GRANT_TOKEN_EXCHANGE]);

/**
 * One debug line per token/revoke/device request: the route, the grant type (only a known one:
 * the value is the caller's), the client ID when it is a snowflake, and the outcome's OAuth2 and
 * platform codes. Never the form, the headers or the error description: those carry codes,
 * verifiers, tokens and secrets, or echo the caller's input.
 */
function logEndpoint(ctx: ServerContext, req: FastifyRequest, status: number, err?: OAuthError): void {
  if (!ctx.log.isLevelEnabled('debug')) return;
  const form = req.body instanceof URLSearchParams ? req.body : undefined;
  const grant = form?.get('grant_type') ?? undefined;
  const clientId = form?.get('client_id') ?? undefined;
  ctx.log.debug({
    route: req.routeOptions.url,
    grant: grant === undefined ? undefined : LOGGED_GRANTS.has(grant) ? grant : 'other',
    clientId: clientId !== undefined && /^\d{1,20}$/.test(clientId) ? clientId : undefined,
    merge: form?.has('external_auth_type') || undefined,
    status,
    error: err?.error,
    code: err?.code,
  });
}

/** OAuth2 provider endpoints under /api (with and without /v10), OIDC discovery and JWKS. */
export function oauth2ApiRoutes(app: FastifyInstance, ctx: ServerContext): void {
  for (const base of ['/api/v10', '/api']) {
    app.post(`${base}/oauth2/token`, TOKEN_LIMIT, (req, reply) =>
      oauthEndpoint(ctx, req, reply, async (form) => {
        const client = await authenticateClient(ctx.store, req.headers.authorization, form);
        return ctx.oauth.token(form, client, issuerOf(ctx, req));
      }),
    );
    app.post(`${base}/oauth2/token/revoke`, TOKEN_LIMIT, (req, reply) =>
      oauthEndpoint(ctx, req, reply, async (form) => {
        const client = await authenticateClient(ctx.store, req.headers.authorization, form);
        await ctx.oauth.revoke(form, client);
        return {};
      }),
    );
    app.post(`${base}/oauth2/device/authorize`, TOKEN_LIMIT, (req, reply) =>
      oauthEndpoint(ctx, req, reply, async (form) => {
        const client = await authenticateClient(ctx.store, req.headers.authorization, form);
        return ctx.oauth.deviceAuthorize(client, form.get('scope'), ctx.publicHttpUrl(req.raw));
      }),
    );
    app.get(`${base}/oauth2/keys`, async (_req, reply) => reply.header('cache-control', 'public, max-age=300').send(await ctx.oauthKeys.jwks()));
  }

  app.get('/.well-known/openid-configuration', async (req) => {
    const origin = ctx.publicHttpUrl(req.raw);
    return {
      issuer: origin,
      authorization_endpoint: `${origin}/oauth2/authorize`,
      token_endpoint: `${origin}/api/v10/oauth2/token`,
      revocation_endpoint: `${origin}/api/v10/oauth2/token/revoke`,
      device_authorization_endpoint: `${origin}/api/v10/oauth2/device/authorize`,
      userinfo_endpoint: `${origin}/api/v10/oauth2/userinfo`,
      jwks_uri: `${origin}/api/v10/oauth2/keys`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', GRANT_DEVICE_CODE, GRANT_TOKEN_EXCHANGE],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      scopes_supported: [...KNOWN_SCOPES],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      code_challenge_methods_supported: ['S256'],
      claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'preferred_username', 'name', 'is_provisional'],
    };
  }, 'oauth2 endpoint');

  /** Current authorization info (protocols.md 2.5). */
  app.get('/api/v10/oauth2/@me', async (req) => {
    const p = requireBearer(await authenticate(req, ctx.store));
    const application = await ctx.store.applications.get(p.applicationId);
    const user = await ctx.store.users.get(p.userId);
    if (!application || !user) throw Errors.unauthorized();
    const grant = await ctx.store.tokens.resolve(String(req.headers.authorization).replace(/^Bearer\s+/i, ''));
    return {
      application: { id: application.id, name: application.name, bot_public: true, bot_require_code_grant: false },
      scopes: p.scopes,
      expires: new Date(grant!.expiresAt).toISOString(),
      ...(p.scopes.includes('identify') ? { user: userToWire(user) } : {}),
    };
  });

  app.get('/api/v10/oauth2/userinfo', async (req) => {
    const p = requireBearer(await authenticate(req, ctx.store), 'openid');
    const user = await ctx.store.users.get(p.userId);
    if (!user) throw Errors.unauthorized();
    return { sub: user.id, preferred_username: user.username, name: user.global_name ?? user.username };
  });

  /**
   * AUTHORIZE_REQUEST (spec, Events): the game's backend (Bot token) asks the game running for a
   * user to start its account-link flow, e.g. from a "link your account" button on its website.
   * Delivered to that user's Gateway sessions of the application; the client fires the callback
   * registered with registerAuthorizeRequestCallback.
   */
  app.post('/api/v10/applications/@me/authorize-requests', { config: { rateLimit: { bucket: 'authorize-requests', limit: 30, windowMs: 60_000 } } }, async (req, reply) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    const body = parse(object({ user_id: { check: snowflake, required: true } }), req.body);
    if (!(await ctx.store.users.get(body.user_id))) throw Errors.unknownUser();
    ctx.bus.publish(userTopic(bot.applicationId, body.user_id), { t: AUTHORIZE_REQUEST_EVENT, json: '{}' });
    return reply.code(204).send();
  });

  // GET /users/@me/guilds (scope `guilds`) is a guild route: routes/guilds.ts.
}

function issuerOf(ctx: ServerContext, req: FastifyRequest): string {
  return ctx.publicHttpUrl(req.raw);
}
