import { Limits } from '@social-layer/protocol';
import { ApiError, Errors } from '../errors/ApiError.ts';
import type { OidcVerifier } from '../oauth2/OidcVerifier.ts';
import type { ApplicationsTable } from '../storage/schema.ts';
import type { ProfileData } from '../storage/ApplicationProfileRepo.ts';
import type { Store } from '../storage/Store.ts';
import { oidcProfile } from './applicationProfiles.ts';

/** An external identity as stored in external_identities: the key of a provisional account. */
export interface ExternalIdentity {
  authType: string;
  externalId: string;
  /** A display name the provider vouched for, used for new accounts. */
  name?: string;
  /** What the provider says about the player (the identity's application profile), when it says anything. */
  profile?: ProfileData;
}

const DEVICE_ID = /^[A-Za-z0-9_-]+$/;

/** Identity providers whose tokens are OIDC ID tokens, checked against the app's configured issuers. */
export const OIDC_LIKE_TYPES = new Set(['OIDC', 'APPLE_ID_TOKEN', 'EPIC_ONLINE_SERVICES_ID_TOKEN', 'UNITY_SERVICES_ID_TOKEN', 'PLAYSTATION_NETWORK_ID_TOKEN']);

/**
 * Turns `external_auth_type` + `external_auth_token` into the identity a provisional account is
 * keyed on (protocols.md 2.7). OIDC-style ID tokens are verified (OidcVerifier); a bot-issued
 * access token names the provisional account it was issued for; DEVICE_ID is our public-client
 * path. Steam tickets and Epic access tokens need those providers' web APIs, which this server
 * cannot reach: they answer 530000 (not enabled).
 */
export async function resolveExternalIdentity(
  store: Store,
  oidc: OidcVerifier,
  application: ApplicationsTable,
  type: string,
  token: string,
  confidential: boolean,
): Promise<ExternalIdentity> {
  if (type === 'DEVICE_ID') {
    if (!confidential && application.public_client !== 1) throw Errors.invalidClientSecret();
    if (token.length < Limits.deviceIdMinLength || token.length > Limits.deviceIdMaxLength || !DEVICE_ID.test(token)) {
      throw Errors.invalidForm({
        external_auth_token: { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH', message: `A device ID is ${Limits.deviceIdMinLength} to ${Limits.deviceIdMaxLength} characters of [A-Za-z0-9_-].` }] },
      });
    }
    return { authType: 'DEVICE_ID', externalId: token };
  }
  if (OIDC_LIKE_TYPES.has(type)) {
    const issuers = await store.oauth.oidcIssuers(application.id);
    if (issuers.length === 0) throw Errors.provisionalNotEnabled();
    const v = await oidc.verify(token, issuers);
    // One identity per issuer and subject, whichever of the OIDC-style types carried it.
    return { authType: 'OIDC', externalId: v.externalId, ...(v.name ? { name: v.name.slice(0, Limits.displayNameMaxLength) } : {}), profile: oidcProfile(type, v) };
  }
  if (type === 'DISCORD_BOT_ISSUED_ACCESS_TOKEN') {
    const grant = await store.tokens.resolve(token);
    if (!grant || grant.applicationId !== application.id) throw Errors.unauthorized();
    const identity = await store.database.db
      .selectFrom('external_identities')
      .select(['auth_type', 'external_id'])
      .where('user_id', '=', grant.userId)
      .where('application_id', '=', application.id)
      .orderBy('created_at')
      .executeTakeFirst();
    const user = await store.users.get(grant.userId);
    if (!identity || !user) throw new ApiError(400, 530010, 'Account is not provisional; use OAuth2');
    return { authType: identity.auth_type, externalId: identity.external_id };
  }
  throw Errors.provisionalNotEnabled();
}
