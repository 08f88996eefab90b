import type { FastifyInstance } from 'fastify';
import { Limits, type TokenResponse } from '@social-layer/protocol';
import { secretMatches } from '../../auth/secrets.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { ApiError, Errors } from '../ApiError.ts';
import { authenticate, requireBot } from '../auth.ts';
import { object, parse, snowflake, str } from '../validate.ts';

const PROVISIONAL_SCOPES = ['sdk.social_layer'];
const DISPLAY_NAME = str({ min: Limits.displayNameMinLength, max: Limits.displayNameMaxLength });

const botBody = object({
  external_user_id: { check: str({ min: 1, max: Limits.externalUserIdMaxLength }), required: true },
  preferred_global_name: { check: DISPLAY_NAME },
});

const tokenBody = object({
  client_id: { check: snowflake, required: true },
  client_secret: { check: str({ min: 1, max: 128 }) },
  external_auth_type: { check: str({ min: 1, max: 64 }), required: true },
  external_auth_token: { check: str({ min: 1, max: 8192 }), required: true },
  preferred_global_name: { check: DISPLAY_NAME },
});

const DEVICE_ID = /^[A-Za-z0-9_-]+$/;
const TOKENS = { config: { rateLimit: { bucket: 'partner-sdk.token', limit: 120, windowMs: 60_000 } } };

/**
 * Provisional (guest) accounts (protocols.md 2.7): the bot-token server endpoint, and the public
 * client path for games without a backend, where the external identity is a random device ID.
 * The OIDC and other identity-provider exchanges arrive with the accounts slice.
 */
export function partnerSdkRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post('/api/v10/partner-sdk/token/bot', TOKENS, async (req) => {
    const bot = requireBot(await authenticate(req, ctx.store));
    const body = parse(botBody, req.body);
    return issue(ctx, bot.applicationId, 'BOT', body.external_user_id, body.preferred_global_name);
  });

  app.post('/api/v10/partner-sdk/token', TOKENS, async (req) => {
    const body = parse(tokenBody, req.body);
    const application = await ctx.store.applications.get(body.client_id);
    if (!application) throw Errors.unknownApplication();
    if (body.client_secret !== undefined && !secretMatches(body.client_secret, application.client_secret_hash)) throw Errors.invalidClientSecret();
    const confidential = body.client_secret !== undefined;

    switch (body.external_auth_type) {
      case 'DEVICE_ID': {
        if (!confidential && application.public_client !== 1) throw Errors.invalidClientSecret();
        const id = body.external_auth_token;
        if (id.length < Limits.deviceIdMinLength || id.length > Limits.deviceIdMaxLength || !DEVICE_ID.test(id)) {
          throw Errors.invalidForm({
            external_auth_token: { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH', message: `A device ID is ${Limits.deviceIdMinLength} to ${Limits.deviceIdMaxLength} characters of [A-Za-z0-9_-].` }] },
          });
        }
        return issue(ctx, application.id, 'DEVICE_ID', id, body.preferred_global_name);
      }
      case 'DISCORD_BOT_ISSUED_ACCESS_TOKEN': {
        // A token the game backend got from /token/bot, exchanged by the game client for its own.
        const grant = await ctx.store.tokens.resolve(body.external_auth_token);
        if (!grant || grant.applicationId !== application.id) throw Errors.unauthorized();
        const user = await ctx.store.users.get(grant.userId);
        if (!user || user.is_provisional !== 1) throw new ApiError(400, 530010, 'Account is not provisional; use OAuth2');
        return tokenResponse(await ctx.store.tokens.issue(user.id, application.id, PROVISIONAL_SCOPES, Limits.accessTokenTtlSeconds));
      }
      default:
        throw Errors.provisionalNotEnabled();
    }
  });
}

async function issue(ctx: ServerContext, applicationId: string, authType: string, externalId: string, preferredName: string | undefined): Promise<TokenResponse> {
  const { user } = await ctx.store.users.findOrCreateProvisional(applicationId, authType, externalId, preferredName);
  return tokenResponse(await ctx.store.tokens.issue(user.id, applicationId, PROVISIONAL_SCOPES, Limits.accessTokenTtlSeconds));
}

function tokenResponse(accessToken: string): TokenResponse {
  return { access_token: accessToken, token_type: 'Bearer', expires_in: Limits.accessTokenTtlSeconds, scope: PROVISIONAL_SCOPES.join(' ') };
}
