import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateClient } from '../../oauth2/clientAuth.ts';
import { OAuthError, OAuthErrors } from '../../oauth2/OAuthError.ts';
import { GRANT_DEVICE_CODE, GRANT_TOKEN_EXCHANGE } from '../../oauth2/OAuthService.ts';
import { KNOWN_SCOPES } from '../../oauth2/scopes.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { userToWire } from '../../storage/UserRepo.ts';
import { ApiError, Errors } from '../ApiError.ts';
import { authenticate, requireBearer, requireBot } from '../auth.ts';
import { AnyObject, BEARER, BOT, CLIENT, describeOnly, NoContent, OAuthErrorBody, Snowflake, Type, type TypeBoxTypeProvider, UserSchema } from '../schemas/index.ts';
import { userTopic } from '../../events/EventBus.ts';
import { AUTHORIZE_REQUEST_EVENT } from '@social-layer/protocol';

// Client-authenticated (Basic or form): keyed on the client address, the Authorization header ignored (RateLimiter.ts).
const TOKEN_LIMIT = { config: { rateLimit: { bucket: 'oauth2.token', limit: 120, windowMs: 60_000, key: 'address' as const } } };
const KEYS_LIMIT = { config: { rateLimit: { bucket: 'oauth2.keys', limit: 60, windowMs: 10_000, key: 'address' as const } } };

const TAGS = ['oauth2'];

/**
 * The form bodies of the RFC 6749 endpoints, for the document. The endpoints check their own
 * input and answer in the RFC's shape (invalid_request, invalid_grant, ...), never 50035, so
 * these schemas describe (validatorCompiler: describeOnly) and the handler reads the form.
 */
const TokenForm = Type.Object({
  grant_type: Type.String({ description: 'authorization_code, refresh_token, client_credentials, urn:ietf:params:oauth:grant-type:device_code or urn:ietf:params:oauth:grant-type:token-exchange' }),
  code: Type.Optional(Type.String()),
  redirect_uri: Type.Optional(Type.String()),
  code_verifier: Type.Optional(Type.String({ description: 'PKCE (S256); required for public clients' })),
  refresh_token: Type.Optional(Type.String()),
  device_code: Type.Optional(Type.String()),
  scope: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String({ description: 'When not sent with HTTP Basic' })),
  client_secret: Type.Optional(Type.String()),
  subject_token: Type.Optional(Type.String({ description: 'Token exchange' })),
  subject_token_type: Type.Optional(Type.String()),
  external_auth_type: Type.Optional(Type.String({ description: 'Merging a provisional account' })),
  external_auth_token: Type.Optional(Type.String()),
});
const RevokeForm = Type.Object({ token: Type.String(), token_type_hint: Type.Optional(Type.String()), client_id: Type.Optional(Type.String()), client_secret: Type.Optional(Type.String()) });
const DeviceForm = Type.Object({ scope: Type.Optional(Type.String()), client_id: Type.Optional(Type.String()), client_secret: Type.Optional(Type.String()) });
const FORM = { consumes: ['application/x-www-form-urlencoded'], tags: TAGS, security: CLIENT };
const OAUTH_ERRORS = { '4XX': { description: 'RFC 6749 error', ...OAuthErrorBody } };

/**
 * Token, revocation and device endpoints take only application/x-www-form-urlencoded
 * (protocols.md 2.7) and answer in the RFC 6749 shape; responses are never cached.
 */
async function oauthEndpoint(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply, run: (form: URLSearchParams) => Promise<unknown>): Promise<void> {
  void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  try {
    const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded' || !(req.body instanceof URLSearchParams)) {
      throw OAuthErrors.invalidRequest('The body must be application/x-www-form-urlencoded');
    }
    const out = await run(req.body);
    logEndpoint(ctx, req, 200);
    await reply.code(200).type('application/json').send(out ?? {});
  } catch (caught) {
    // A platform error inside a grant (530017 on a merge, say) keeps its code in the OAuth2 shape.
    const err = caught instanceof ApiError && caught.status < 500 ? new OAuthError(caught.status === 401 ? 400 : caught.status, 'invalid_grant', caught.message, caught.code || undefined) : caught;
    if (!(err instanceof OAuthError)) throw err;
    logEndpoint(ctx, req, err.status, err);
    if (err.headers) void reply.headers(err.headers);
    await reply.code(err.status).type('application/json').send(err.body());
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
  }, 'oauth2 endpoint');
}

/** OAuth2 provider endpoints under /api (with and without /v10), OIDC discovery and JWKS. */
export function oauth2ApiRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const base of ['/api/v10', '/api']) {
    r.post(
      `${base}/oauth2/token`,
      { schema: { summary: 'Token endpoint (RFC 6749)', ...FORM, body: TokenForm, response: { 200: AnyObject('Token response: access_token, token_type, expires_in, scope, refresh_token?, id_token?'), ...OAUTH_ERRORS } }, validatorCompiler: describeOnly, ...TOKEN_LIMIT },
      (req, reply) =>
      oauthEndpoint(ctx, req, reply, async (form) => {
        const client = await authenticateClient(ctx.store, req.headers.authorization, form);
        return ctx.oauth.token(form, client, issuerOf(ctx, req));
      }),
    );
    r.post(
      `${base}/oauth2/token/revoke`,
      { schema: { summary: 'Revoke a token and its authorization (RFC 7009)', ...FORM, body: RevokeForm, response: { 200: AnyObject('Empty object'), ...OAUTH_ERRORS } }, validatorCompiler: describeOnly, ...TOKEN_LIMIT },
      (req, reply) =>
      oauthEndpoint(ctx, req, reply, async (form) => {
        const client = await authenticateClient(ctx.store, req.headers.authorization, form);
        await ctx.oauth.revoke(form, client);
        return {};
      }),
    );
    r.post(
      `${base}/oauth2/device/authorize`,
      { schema: { summary: 'Device authorization (RFC 8628)', ...FORM, body: DeviceForm, response: { 200: AnyObject('device_code, user_code, verification_uri, verification_uri_complete, expires_in, interval'), ...OAUTH_ERRORS } }, validatorCompiler: describeOnly, ...TOKEN_LIMIT },
      (req, reply) =>
      oauthEndpoint(ctx, req, reply, async (form) => {
        const client = await authenticateClient(ctx.store, req.headers.authorization, form);
        return ctx.oauth.deviceAuthorize(client, form.get('scope'), ctx.publicHttpUrl());
      }),
    );
    r.get(`${base}/oauth2/keys`, { schema: { summary: 'JSON Web Key Set of the ID-token signing keys', tags: TAGS, response: { 200: AnyObject('JWKS: {keys: [...]}') } }, ...KEYS_LIMIT }, async (_req, reply) => reply.header('cache-control', 'public, max-age=300').send(await ctx.oauthKeys.jwks()));
  }

  r.get('/.well-known/openid-configuration', { schema: { summary: 'OpenID Connect discovery', tags: TAGS, response: { 200: AnyObject('OpenID Provider Metadata') } } }, async (req) => {
    const origin = ctx.publicHttpUrl();
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
  });

  /** Current authorization info (protocols.md 2.5). */
  const AuthorizationInfo = Type.Object(
    {
      application: Type.Object({ id: Snowflake(), name: Type.String(), bot_public: Type.Boolean(), bot_require_code_grant: Type.Boolean() }),
      scopes: Type.Array(Type.String()),
      expires: Type.String({ description: 'ISO 8601' }),
      user: Type.Optional(UserSchema),
    },
    { title: 'AuthorizationInfo' },
  );
  r.get('/api/v10/oauth2/@me', { schema: { summary: 'Current authorization (application, scopes, expiry, user with identify)', tags: TAGS, security: BEARER, response: { 200: AuthorizationInfo } } }, async (req) => {
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

  const UserInfo = Type.Object(
    { sub: Snowflake(), preferred_username: Type.String(), name: Type.String(), email: Type.Optional(Type.String()), email_verified: Type.Optional(Type.Boolean()) },
    { title: 'UserInfo' },
  );
  r.get('/api/v10/oauth2/userinfo', { schema: { summary: 'OpenID Connect UserInfo (openid scope)', tags: TAGS, security: BEARER, response: { 200: UserInfo } } }, async (req) => {
    const p = requireBearer(await authenticate(req, ctx.store), 'openid');
    const user = await ctx.store.users.get(p.userId);
    if (!user) throw Errors.unauthorized();
    // OpenID's email claims only with the `email` scope, and only when the account has one.
    const email = p.scopes.includes('email') ? (await ctx.store.accounts.get(user.id))?.email : undefined;
    return { sub: user.id, preferred_username: user.username, name: user.global_name ?? user.username, ...(email ? { email, email_verified: false } : {}) };
  });

  /**
   * AUTHORIZE_REQUEST (spec, Events): the game's backend (Bot token) asks the game running for a
   * user to start its account-link flow, e.g. from a "link your account" button on its website.
   * Delivered to that user's Gateway sessions of the application; the client fires the callback
   * registered with registerAuthorizeRequestCallback.
   */
  r.post(
    '/api/v10/applications/@me/authorize-requests',
    {
      schema: { summary: 'Ask the game running for a user to start its account-link flow (AUTHORIZE_REQUEST)', tags: TAGS, security: BOT, body: Type.Object({ user_id: Snowflake() }), response: { 204: NoContent } },
      config: { rateLimit: { bucket: 'authorize-requests', limit: 30, windowMs: 60_000 } },
    },
    async (req, reply) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    const body = req.body;
    if (!(await ctx.store.users.get(body.user_id))) throw Errors.unknownUser();
    ctx.bus.publish(userTopic(bot.applicationId, body.user_id), { t: AUTHORIZE_REQUEST_EVENT, json: '{}' });
    return reply.code(204).send();
  });

  // GET /users/@me/guilds (scope `guilds`) is a guild route: routes/guilds.ts.
}

function issuerOf(ctx: ServerContext, req: FastifyRequest): string {
  return ctx.publicHttpUrl();
}
