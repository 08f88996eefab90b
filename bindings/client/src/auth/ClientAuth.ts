import {
  ACCESS_TOKEN_TYPE_URN,
  AuthorizationTokenType,
  ErrorType,
  OAuthGrantType,
  type AuthenticationExternalAuthType,
  type TokenResponse,
  type UnmergeBody,
} from '@social-layer/protocol';
import { ClientResultError } from '../ClientResultError.ts';
import type { HttpApi } from '../HttpApi.ts';
import type { Logger } from '../Logger.ts';
import { checkExternalAuth, checkSnowflake } from '../validation.ts';
import { AuthorizationArgs, AuthorizationCodeChallenge, AuthorizationCodeVerifier, DeviceAuthorizationArgs } from './AuthorizationArgs.ts';
import { type AuthorizationResult, type AuthorizeOpener, type PageOpener, authorizeUrl, defaultRedirectUri, newState, popupOpener, popupPageOpener, readRedirect } from './authorizeFlow.ts';
import { OAuthApi } from './OAuthApi.ts';
import { base64url, randomBytes, sha256 } from './sha256.ts';
import { TokenExpiry } from './TokenExpiry.ts';

/** The spec's TokenExchangeCallback values. */
export interface TokenExchangeResult {
  accessToken: string;
  /** Empty when the grant gives none (provisional and child tokens). */
  refreshToken: string;
  tokenType: AuthorizationTokenType;
  /** Seconds. */
  expiresIn: number;
  scopes: string;
  /** The OpenID ID token when `openid` was granted (not part of the native callback; for backends). */
  idToken?: string;
}

/** The spec's ExchangeChildTokenCallback values (no refresh token). */
export interface ChildTokenResult {
  /** The child application's access token. */
  accessToken: string;
  /** The token type (Bearer). */
  tokenType: AuthorizationTokenType;
  /** Seconds until the token expires. */
  expiresIn: number;
  /** The scopes granted, space-separated. */
  scopes: string;
}

/** The spec's FetchCurrentUserCallback values. */
export interface CurrentUserResult {
  /** The user ID. */
  id: string;
  /** The username (unique; generated for provisional accounts). */
  name: string;
}

/** What getTokenFromDevice shows the player: the code to type at the verification page. */
export interface DeviceScreen {
  /**
   * Shows the code. `expiresIn` is in seconds, 0 when unknown (openAuthorizeDeviceScreen).
   * `dismissed`, when given, is for the screen to call if the player closes it themselves.
   */
  open(info: { clientId: string; userCode: string; verificationUri: string; verificationUriComplete: string; expiresIn: number; dismissed?: () => void }): void;
  /** Hides the code: the flow finished, failed or was aborted. */
  close(): void;
}

export interface ClientAuthHost {
  http: HttpApi;
  logger: Logger;
  apiBase: string;
  applicationId(): string | undefined;
}

const SCHEME = /^[a-z][a-z0-9+.-]{0,63}$/;
const STATE_MAX = 1024;

export function toTokenResult(r: TokenResponse): TokenExchangeResult {
  return {
    accessToken: r.access_token,
    refreshToken: r.refresh_token ?? '',
    tokenType: AuthorizationTokenType.Bearer,
    expiresIn: r.expires_in,
    scopes: r.scope,
    ...(r.id_token ? { idToken: r.id_token } : {}),
  };
}

/**
 * The Client API's account-linking operations (reference/social-sdk-api.md 2.3): the authorize
 * flow with PKCE and a checked state, the token operations of public clients, the device flow,
 * merging and unmerging provisional accounts, and child tokens. The Client delegates to it.
 */
export class ClientAuth {
  opener: AuthorizeOpener | undefined;
  pageOpener: PageOpener | undefined;
  deviceScreen: DeviceScreen | undefined;
  /** setTokenExpirationCallback's watcher; the Client tells it about updateToken and status changes. */
  readonly expiry: TokenExpiry;
  private readonly oauth: OAuthApi;
  private authorizeAbort: AbortController | undefined;
  private deviceAbort: AbortController | undefined;

  constructor(private readonly host: ClientAuthHost) {
    this.oauth = new OAuthApi(host.http, host.logger);
    this.expiry = new TokenExpiry({
      logger: host.logger,
      lookup: async (token) => {
        const info = await this.oauth.getWithToken<{ expires?: string }>('/oauth2/@me', token);
        const at = info.expires ? Date.parse(info.expires) : Number.NaN;
        return Number.isFinite(at) ? at : undefined;
      },
    });
  }

  /** The token endpoint, remembering the expiry of what it issues (setTokenExpirationCallback). */
  private async grant(form: Record<string, string>): Promise<TokenResponse & { issued_token_type?: string }> {
    const r = await this.oauth.token(form);
    this.expiry.saw(r.access_token, r.expires_in);
    return r;
  }

  private appId(explicit: string | undefined, what = 'applicationId'): string {
    const id = explicit ?? this.host.applicationId();
    if (id === undefined) throw ClientResultError.validation(`${what} is not set: pass it or call setApplicationId()`);
    return checkSnowflake(id, what);
  }

  createAuthorizationCodeVerifier(): AuthorizationCodeVerifier {
    const verifier = base64url(randomBytes(32));
    const challenge = new AuthorizationCodeChallenge();
    challenge.setChallenge(base64url(sha256(new TextEncoder().encode(verifier))));
    return new AuthorizationCodeVerifier(challenge, verifier);
  }

  /**
   * Runs the authorization: opens the platform's authorize page and resolves with the code
   * and the redirect URI to pass to getToken. Rejects with Aborted when the user cancels or
   * abortAuthorize() is called, AuthorizationFailed when the server refuses or the state does
   * not match, ValidationError for bad arguments.
   */
  async authorize(args: AuthorizationArgs, redirectUriOverride?: string): Promise<AuthorizationResult> {
    if (!(args instanceof AuthorizationArgs) || !args.valid()) throw ClientResultError.validation('authorize needs a valid AuthorizationArgs');
    const applicationId = this.appId(args.clientId(), 'AuthorizationArgs.clientId');
    if (!args.scopes().trim()) throw ClientResultError.validation('AuthorizationArgs.scopes must name at least one scope');
    const scheme = args.customSchemeParam();
    if (scheme !== undefined && !SCHEME.test(scheme)) throw ClientResultError.validation('customSchemeParam must be a URI scheme ([a-z][a-z0-9+.-]*)');
    const given = args.state();
    if (given !== undefined && (given.length === 0 || given.length > STATE_MAX)) throw ClientResultError.validation(`state must be 1-${STATE_MAX} characters`);
    const challenge = args.codeChallenge();
    if (challenge && !/^[A-Za-z0-9_-]{43}$/.test(challenge.challenge())) throw ClientResultError.validation('codeChallenge must come from createAuthorizationCodeVerifier()');

    const browser = isBrowser();
    const opener = this.opener ?? (browser ? popupOpener : undefined);
    if (!opener) throw ClientResultError.validation('no authorize opener: call setAuthorizeOpener() (Node has no browser window to open)');
    const redirectUri = redirectUriOverride ?? (scheme === undefined && browser ? browserRedirect() : defaultRedirectUri(applicationId, scheme));
    const state = given ?? newState();
    this.abortAuthorize();
    const abort = new AbortController();
    this.authorizeAbort = abort;
    const url = authorizeUrl(this.host.apiBase, applicationId, args, redirectUri, state);
    this.host.logger.info(`authorize: opening the authorize page for application ${applicationId}`);
    let finalUrl: string;
    try {
      finalUrl = await Promise.race([
        opener(url, redirectUri, abort.signal),
        new Promise<never>((_, reject) => abort.signal.addEventListener('abort', () => reject(new ClientResultError({ type: ErrorType.Aborted, error: 'authorization aborted' })), { once: true })),
      ]);
    } catch (error) {
      if (error instanceof ClientResultError) throw error;
      throw new ClientResultError({ type: ErrorType.Aborted, error: `the authorize window failed: ${error instanceof Error ? error.message : String(error)}` });
    } finally {
      if (this.authorizeAbort === abort) this.authorizeAbort = undefined;
    }
    if (abort.signal.aborted) throw new ClientResultError({ type: ErrorType.Aborted, error: 'authorization aborted' });
    const result = readRedirect(finalUrl, redirectUri, state);
    this.host.logger.info('authorize: got an authorization code');
    return result;
  }

  abortAuthorize(): void {
    this.authorizeAbort?.abort();
    this.authorizeAbort = undefined;
  }

  async getToken(applicationId: string, code: string, codeVerifier: string, redirectUri: string, merge?: Record<string, string>): Promise<TokenExchangeResult> {
    const clientId = this.appId(applicationId);
    if (!code) throw ClientResultError.validation('code must be a non-empty string');
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(codeVerifier)) throw ClientResultError.validation('codeVerifier must come from createAuthorizationCodeVerifier()');
    if (!redirectUri) throw ClientResultError.validation('redirectUri must be the one authorize() returned');
    return toTokenResult(await this.grant({ grant_type: OAuthGrantType.AuthorizationCode, client_id: clientId, code, code_verifier: codeVerifier, redirect_uri: redirectUri, ...merge }));
  }

  async getTokenFromProvisionalMerge(applicationId: string, code: string, codeVerifier: string, redirectUri: string, externalAuthType: AuthenticationExternalAuthType, externalAuthToken: string): Promise<TokenExchangeResult> {
    const wire = checkExternalAuth(externalAuthType, externalAuthToken);
    return this.getToken(applicationId, code, codeVerifier, redirectUri, { external_auth_type: wire, external_auth_token: externalAuthToken });
  }

  async refreshToken(applicationId: string, refreshToken: string): Promise<TokenExchangeResult> {
    const clientId = this.appId(applicationId);
    if (!refreshToken) throw ClientResultError.validation('refreshToken must be a non-empty string');
    return toTokenResult(await this.grant({ grant_type: OAuthGrantType.RefreshToken, client_id: clientId, refresh_token: refreshToken }));
  }

  /** Revokes every access and refresh token of the user for the application (sign out). */
  async revokeToken(applicationId: string, token: string): Promise<void> {
    const clientId = this.appId(applicationId);
    if (!token) throw ClientResultError.validation('token must be a non-empty string');
    await this.oauth.revoke({ client_id: clientId, token });
  }

  async exchangeChildToken(parentApplicationToken: string, childApplicationId: string): Promise<ChildTokenResult> {
    const clientId = checkSnowflake(childApplicationId, 'childApplicationId');
    if (!parentApplicationToken) throw ClientResultError.validation('parentApplicationToken must be a non-empty string');
    const r = await this.grant({ grant_type: OAuthGrantType.TokenExchange, client_id: clientId, subject_token: parentApplicationToken, subject_token_type: ACCESS_TOKEN_TYPE_URN });
    return { accessToken: r.access_token, tokenType: AuthorizationTokenType.Bearer, expiresIn: r.expires_in, scopes: r.scope };
  }

  /**
   * The device flow (RFC 8628) in one call: asks for a user code, shows it (setAuthorizeDeviceScreen),
   * and polls at the server's interval until the player approves, cancels or the code expires.
   */
  async getTokenFromDevice(args: DeviceAuthorizationArgs, merge?: Record<string, string>): Promise<TokenExchangeResult> {
    if (!(args instanceof DeviceAuthorizationArgs) || !args.valid()) throw ClientResultError.validation('getTokenFromDevice needs a valid DeviceAuthorizationArgs');
    const clientId = this.appId(args.clientId(), 'DeviceAuthorizationArgs.clientId');
    if (!args.scopes().trim()) throw ClientResultError.validation('DeviceAuthorizationArgs.scopes must name at least one scope');
    this.abortGetTokenFromDevice();
    const abort = new AbortController();
    this.deviceAbort = abort;
    const start = await this.oauth.deviceAuthorize({ client_id: clientId, scope: args.scopes() });
    this.deviceScreen?.open({ clientId, userCode: start.user_code, verificationUri: start.verification_uri, verificationUriComplete: start.verification_uri_complete, expiresIn: start.expires_in });
    let interval = Math.max(1, start.interval) * 1000;
    try {
      for (;;) {
        await sleep(interval, abort.signal);
        try {
          return toTokenResult(await this.grant({ grant_type: OAuthGrantType.DeviceCode, client_id: clientId, device_code: start.device_code, ...merge }));
        } catch (error) {
          if (!(error instanceof ClientResultError)) throw error;
          if (error.error.startsWith('authorization_pending')) continue;
          if (error.error.startsWith('slow_down')) {
            interval += 5000;
            continue;
          }
          if (error.error.startsWith('access_denied')) throw new ClientResultError({ type: ErrorType.Aborted, error: 'the user cancelled the authorization', status: error.status, responseBody: error.responseBody });
          throw error;
        }
      }
    } finally {
      if (this.deviceAbort === abort) this.deviceAbort = undefined;
      this.deviceScreen?.close();
    }
  }

  getTokenFromDeviceProvisionalMerge(args: DeviceAuthorizationArgs, externalAuthType: AuthenticationExternalAuthType, externalAuthToken: string): Promise<TokenExchangeResult> {
    const wire = checkExternalAuth(externalAuthType, externalAuthToken);
    return this.getTokenFromDevice(args, { external_auth_type: wire, external_auth_token: externalAuthToken });
  }

  abortGetTokenFromDevice(): void {
    this.deviceAbort?.abort();
    this.deviceAbort = undefined;
  }

  /** Moves the external identity out of the full account into a new provisional account; every token of the account for the app stops working. */
  async unmergeIntoProvisionalAccount(applicationId: string, externalAuthType: AuthenticationExternalAuthType, externalAuthToken: string): Promise<void> {
    const clientId = this.appId(applicationId);
    const wire = checkExternalAuth(externalAuthType, externalAuthToken);
    const body: UnmergeBody = { client_id: clientId, external_auth_type: wire, external_auth_token: externalAuthToken };
    await this.host.http.request<void>({ method: 'POST', path: '/partner-sdk/provisional-accounts/unmerge', body, auth: false });
  }

  /** FetchCurrentUser: checks a token without connecting (GET /users/@me with it). A bad or expired token is HTTPError 401. */
  async fetchCurrentUser(tokenType: AuthorizationTokenType, token: string): Promise<CurrentUserResult> {
    if (tokenType !== AuthorizationTokenType.Bearer) throw ClientResultError.validation('only Bearer tokens are supported');
    if (typeof token !== 'string' || !token.trim()) throw ClientResultError.validation('token must be a non-empty string');
    const user = await this.oauth.getWithToken<{ id: string; username: string }>('/users/@me', token.replace(/^Bearer\s+/i, ''));
    return { id: user.id, name: user.username };
  }

  /**
   * OpenConnectedGamesSettingsInDiscord: shows the platform's account page (connected games,
   * with Unlink and Remove app) through the page opener: a popup in browsers, the one set with
   * setAccountPageOpener elsewhere. As the spec says, it does nothing for a client that is not
   * connected or whose user is provisional (no account page to show); those reject
   * (ClientNotReady, ValidationError) without opening anything.
   */
  async openConnectedGamesSettings(connected: boolean, provisional: boolean | undefined): Promise<void> {
    if (!connected) throw ClientResultError.notReady('openConnectedGamesSettingsInDiscord');
    if (provisional !== false) throw ClientResultError.validation('a provisional account has no connected-games settings: link the account first');
    const opener = this.pageOpener ?? (isBrowser() ? popupPageOpener : undefined);
    if (!opener) throw ClientResultError.validation('no page opener: call setAccountPageOpener() (Node has no browser window to open)');
    this.host.logger.info('opening the connected games settings (account page)');
    try {
      await opener(`${this.host.apiBase}/account`);
    } catch (error) {
      if (error instanceof ClientResultError) throw error;
      throw new ClientResultError({ type: ErrorType.Aborted, error: `the account page failed to open: ${error instanceof Error ? error.message : String(error)}` });
    }
  }
}

function isBrowser(): boolean {
  return typeof (globalThis as { window?: unknown }).window !== 'undefined';
}

function browserRedirect(): string {
  const loc = (globalThis as { location?: { origin: string; pathname: string } }).location!;
  return `${loc.origin}${loc.pathname}`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ClientResultError({ type: ErrorType.Aborted, error: 'device authorization aborted' }));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new ClientResultError({ type: ErrorType.Aborted, error: 'device authorization aborted' }));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
