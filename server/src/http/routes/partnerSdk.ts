import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiErrorCode, Limits, type TokenResponse } from '@social-layer/protocol';
import { botProfile, PROFILE_LIMITS } from '../../accounts/applicationProfiles.ts';
import { type ExternalIdentity, OIDC_LIKE_TYPES, resolveExternalIdentity } from '../../accounts/externalIdentity.ts';
import { secretMatches } from '../../auth/secrets.ts';
import type { ServerContext } from '../../ServerContext.ts';
import type { ApplicationsTable } from '../../storage/schema.ts';
import { ApiError, Errors } from '../ApiError.ts';
import { authenticate, requireBot } from '../auth.ts';
import { BEARER, BOT, NoContent, Snowflake, Str, TokenResponseSchema, Type, type TypeBoxTypeProvider } from '../schemas/index.ts';

const PROVISIONAL_SCOPES = ['sdk.social_layer'];
const TAGS = ['provisional accounts'];
const DisplayName = Str(Limits.displayNameMinLength, Limits.displayNameMaxLength, { description: 'Display name of a new provisional account' });
const ExternalUserId = Str(1, Limits.externalUserIdMaxLength, { description: 'The game\'s own ID for the player' });
const ExternalAuth = {
  client_id: Snowflake('Application (client) ID'),
  client_secret: Type.Optional(Str(1, 128, { description: 'Confidential clients only' })),
  external_auth_type: Str(1, 64, { description: 'DEVICE_ID, OIDC, DISCORD_BOT_ISSUED_ACCESS_TOKEN, ...' }),
  external_auth_token: Str(1, 8192, { description: 'The device ID, ID token or bot-issued token' }),
};

// The game server's word on its player (UserApplicationProfileHandle); without it a profile already stored stays.
const BotProfile = Type.Object({
  username: Type.Optional(Str(1, PROFILE_LIMITS.username, { description: 'The player\'s name in the game' })),
  avatar_hash: Type.Optional(Str(1, PROFILE_LIMITS.avatarHash, { description: 'The player\'s avatar in the game' })),
  metadata: Type.Optional(Str(1, PROFILE_LIMITS.metadata, { description: 'Developer-set data' })),
});
const BotBody = Type.Object({ external_user_id: ExternalUserId, preferred_global_name: Type.Optional(DisplayName), application_profile: Type.Optional(BotProfile) });
const TokenBody = Type.Object({ ...ExternalAuth, preferred_global_name: Type.Optional(DisplayName) });
const UnmergeBody = Type.Object(ExternalAuth);
const UnmergeBotBody = Type.Object({ external_user_id: ExternalUserId });

// The client-credential routes key on the client address (the Authorization header ignored); the bot routes on the application.
const TOKENS = { config: { rateLimit: { bucket: 'partner-sdk.token', limit: 120, windowMs: 60_000, key: 'address' as const } } };
const BOT_TOKENS = { config: { rateLimit: { bucket: 'partner-sdk.token', limit: 120, windowMs: 60_000 } } };

/**
 * Provisional (guest) accounts (protocols.md 2.7), by the three routes of the spec: the bot-token
 * server endpoint, the external-credentials exchange (OIDC ID tokens and the providers that
 * issue them; see accounts/externalIdentity.ts), and the public client path for games without a
 * backend, where the external identity is a random device ID. An identity already merged into a
 * full account answers 530010: the game runs OAuth2 instead. Unmerge moves an identity back out.
 */
export function partnerSdkRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post('/api/v10/partner-sdk/token/bot', { schema: { summary: 'Provisional account token for an external user ID (server side)', tags: TAGS, security: BOT, body: BotBody, response: { 200: TokenResponseSchema } }, ...BOT_TOKENS }, async (req) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    const body = req.body;
    const profile = botProfile(bot.applicationId, body.external_user_id, body.application_profile);
    return issue(ctx, req, bot.applicationId, { authType: 'BOT', externalId: body.external_user_id, profile }, body.preferred_global_name, body.application_profile === undefined);
  });

  r.post('/api/v10/partner-sdk/token', { schema: { summary: 'Provisional account token for external credentials (device ID, OIDC ID token, ...)', tags: TAGS, body: TokenBody, response: { 200: TokenResponseSchema } }, ...TOKENS }, async (req) => {
    const body = req.body;
    const { application, confidential } = await client(ctx, body.client_id, body.client_secret);
    const identity = await resolveExternalIdentity(ctx.store, ctx.oidc, application, body.external_auth_type, body.external_auth_token, confidential);
    // Server-side OIDC (the backend, with its secret, exchanging an ID token) gets a refresh_token
    // too, as the spec says; the refresh_token grant itself refuses provisional accounts.
    const serverSideOidc = confidential && OIDC_LIKE_TYPES.has(body.external_auth_type);
    return issue(ctx, req, application.id, identity, body.preferred_global_name ?? identity.name, false, serverSideOidc);
  });

  r.post('/api/v10/partner-sdk/provisional-accounts/unmerge', { schema: { summary: 'Move an external identity back out of a full account', tags: TAGS, body: UnmergeBody, response: { 204: NoContent } }, ...TOKENS }, async (req, reply) => {
    const body = req.body;
    const { application, confidential } = await client(ctx, body.client_id, body.client_secret);
    if (body.external_auth_type === 'DISCORD_BOT_ISSUED_ACCESS_TOKEN') throw new ApiError(400, ApiErrorCode.AccountNotProvisional, 'Use /partner-sdk/provisional-accounts/unmerge/bot for bot-issued identities');
    const identity = await resolveExternalIdentity(ctx.store, ctx.oidc, application, body.external_auth_type, body.external_auth_token, confidential);
    await ctx.accounts.unmerge(application.id, identity.authType, identity.externalId);
    return reply.code(204).send();
  });

  r.post('/api/v10/partner-sdk/provisional-accounts/unmerge/bot', { schema: { summary: 'Unmerge a bot-issued identity (server side)', tags: TAGS, security: BOT, body: UnmergeBotBody, response: { 204: NoContent } }, ...BOT_TOKENS }, async (req, reply) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    const body = req.body;
    await ctx.accounts.unmerge(bot.applicationId, 'BOT', body.external_user_id);
    return reply.code(204).send();
  });
}

async function client(ctx: ServerContext, clientId: string, secret: string | undefined): Promise<{ application: ApplicationsTable; confidential: boolean }> {
  const application = await ctx.store.applications.get(clientId);
  // No provisional account of the platform's own client: its tokens are the web app's session.
  if (!application || application.first_party === 1) throw Errors.unknownApplication();
  if (secret !== undefined && !secretMatches(secret, application.client_secret_hash)) throw Errors.invalidClientSecret();
  return { application, confidential: secret !== undefined };
}

async function issue(ctx: ServerContext, req: FastifyRequest, applicationId: string, identity: ExternalIdentity, preferredName: string | undefined, keepProfile = false, withRefresh = false): Promise<TokenResponse> {
  const { user } = await ctx.store.users.findOrCreateProvisional(applicationId, identity.authType, identity.externalId, preferredName);
  if (user.is_provisional !== 1) throw new ApiError(400, ApiErrorCode.AccountNotProvisional, 'Account is not provisional; use OAuth2');
  // The provider's latest word on the player (one statement: the profile is whole or not there).
  if (identity.profile) await ctx.store.applicationProfiles.upsert({ applicationId, authType: identity.authType, externalId: identity.externalId }, identity.profile, { keepExisting: keepProfile });
  const pair = withRefresh
    ? await ctx.store.database.db.transaction().execute((tx) => ctx.store.tokens.issuePair(tx, user.id, applicationId, PROVISIONAL_SCOPES, PROVISIONAL_SCOPES, Limits.accessTokenTtlSeconds))
    : { accessToken: await ctx.store.tokens.issue(user.id, applicationId, PROVISIONAL_SCOPES, Limits.accessTokenTtlSeconds), refreshToken: undefined };
  const accessToken = pair.accessToken;
  // The identity's kind, never its value (a device ID or an ID token is a credential).
  ctx.log.debug({ applicationId, userId: user.id, authType: identity.authType }, 'provisional token issued');
  return {
    access_token: accessToken,
    // Provisional responses carry an ID token too (protocols.md 2.7), for backends that use them.
    id_token: await ctx.oauth.idToken(ctx.publicHttpUrl(), user, applicationId),
    token_type: 'Bearer',
    expires_in: Limits.accessTokenTtlSeconds,
    ...(pair.refreshToken ? { refresh_token: pair.refreshToken } : {}),
    scope: PROVISIONAL_SCOPES.join(' '),
  };
}
