import type { Logger } from '../log/Logger.ts';
import { OAuthService } from '../oauth2/OAuthService.ts';
import { OidcVerifier } from '../oauth2/OidcVerifier.ts';
import { registrableRedirectUri } from '../oauth2/redirects.ts';
import { KNOWN_SCOPES } from '../oauth2/scopes.ts';
import { SigningKeys } from '../oauth2/SigningKeys.ts';
import type { Store } from '../storage/Store.ts';
import { AccountService } from './AccountService.ts';
import { DEFAULT_SCRYPT_COST, type ScryptCost } from './passwords.ts';

export interface AccountsOptions {
  /**
   * Accept OIDC issuers on http(s)://127.0.0.1, [::1] or localhost (any port). For tests and
   * local development only; production issuers follow the strict hostname rules
   * (oauth2/issuerHostnames.ts).
   */
  allowLoopbackOidcIssuers?: boolean;
  /** Device flow polling interval in seconds (default 5, RFC 8628). */
  deviceIntervalSeconds?: number;
  /** Lifetime of a device code (default 300 s, as the public system). */
  deviceCodeTtlSeconds?: number;
  /** Lifetime of an authorization code (default 600 s, RFC 6749's recommended maximum). */
  codeTtlSeconds?: number;
  /** scrypt cost for new password hashes (default N=2^15, r=8, p=1). */
  passwordCost?: ScryptCost;
}

export interface AccountServices {
  accounts: AccountService;
  oauth: OAuthService;
  oauthKeys: SigningKeys;
  oidc: OidcVerifier;
}

export function createAccountServices(store: Store, log: Logger, options: AccountsOptions = {}): AccountServices {
  const accounts = new AccountService(store, log.child({ scope: 'accounts' }), options.passwordCost ?? DEFAULT_SCRYPT_COST);
  const oauthKeys = new SigningKeys(store.signingKeys);
  const oidc = new OidcVerifier(options.allowLoopbackOidcIssuers === true, log.child({ scope: 'oidc' }));
  const oauth = new OAuthService(
    store,
    accounts,
    oauthKeys,
    oidc,
    {
      codeTtlSeconds: options.codeTtlSeconds ?? 600,
      deviceCodeTtlSeconds: options.deviceCodeTtlSeconds ?? 300,
      deviceIntervalSeconds: options.deviceIntervalSeconds ?? 5,
    },
    log.child({ scope: 'oauth2' }),
  );
  return { accounts, oauth, oauthKeys, oidc };
}

/** What an application's developer configures (the developer portal's OAuth2 and SDK settings). */
export interface ApplicationSettings {
  redirectUris?: string[];
  /** Issuers whose ID tokens may create provisional accounts, with the audience they must carry. */
  oidcIssuers?: { issuer: string; audience: string }[];
  /** Makes this a child application of `parentId` (publisher-level linking, approval needed). */
  parentId?: string | null;
  /** Privileged scopes the application was approved for, e.g. ['identify.premium']. */
  approvedScopes?: string[];
  /** Public clients may use PKCE and the device-ID guest path without a secret. */
  publicClient?: boolean;
}

export async function configureApplication(store: Store, applicationId: string, s: ApplicationSettings): Promise<void> {
  if (!(await store.applications.get(applicationId))) throw new Error(`unknown application ${applicationId}`);
  if (s.redirectUris) {
    const bad = s.redirectUris.find((u) => !registrableRedirectUri(u));
    if (bad) throw new Error(`not a valid redirect URI: ${bad}`);
    await store.oauth.setRedirectUris(applicationId, s.redirectUris);
  }
  if (s.oidcIssuers) await store.oauth.setOidcIssuers(applicationId, s.oidcIssuers);
  const db = store.database.db;
  if (s.parentId !== undefined) {
    if (s.parentId !== null && (s.parentId === applicationId || !(await store.applications.get(s.parentId)))) throw new Error('invalid parent application');
    await db.updateTable('applications').set({ parent_id: s.parentId }).where('id', '=', applicationId).execute();
    store.socialSettings.forgetFamilies();
  }
  if (s.approvedScopes) {
    const bad = s.approvedScopes.find((x) => !KNOWN_SCOPES.has(x));
    if (bad) throw new Error(`unknown scope ${bad}`);
    await db.updateTable('applications').set({ approved_scopes: s.approvedScopes.join(' ') }).where('id', '=', applicationId).execute();
  }
  if (s.publicClient !== undefined) await db.updateTable('applications').set({ public_client: s.publicClient ? 1 : 0 }).where('id', '=', applicationId).execute();
}
