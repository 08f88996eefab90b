import { AuthorizationTokenType, type AuthenticationExternalAuthType, type ProvisionalTokenBody, type TokenResponse, type User } from '@social-layer/protocol';
import { ClientResultError } from '../ClientResultError.ts';
import type { HttpApi } from '../HttpApi.ts';
import { checkDisplayName, checkExternalAuth, checkSnowflake } from '../validation.ts';
import type { TokenExpiry } from './TokenExpiry.ts';

/** What getProvisionalToken resolves with (the spec's TokenExchangeCallback values). */
export interface TokenExchangeResult {
  /** The access token (`Client.updateToken` takes it). */
  accessToken: string;
  /** Empty: provisional tokens come without a refresh token; ask for a new one instead. */
  refreshToken: string;
  /** The token type (Bearer). */
  tokenType: AuthorizationTokenType;
  /** Seconds. */
  expiresIn: number;
  /** The scopes granted, space-separated. */
  scopes: string;
}

/**
 * The token the client uses and the provisional (guest) account calls that need no connection:
 * getProvisionalToken, updateToken, updateProvisionalAccountDisplayName (social-sdk-api.md 2.3).
 */
export class ProvisionalTokens {
  constructor(
    private readonly host: {
      http: HttpApi;
      expiry: TokenExpiry;
      adoptApplicationId(applicationId: string): void;
      rememberUser(user: User, announce: boolean): void;
    },
  ) {}

  async getProvisionalToken(applicationId: string, externalAuthType: AuthenticationExternalAuthType, externalAuthToken: string): Promise<TokenExchangeResult> {
    checkSnowflake(applicationId, 'applicationId');
    const wireType = checkExternalAuth(externalAuthType, externalAuthToken);
    const body: ProvisionalTokenBody = { client_id: applicationId, external_auth_type: wireType, external_auth_token: externalAuthToken };
    const response = await this.host.http.request<TokenResponse>({ method: 'POST', path: '/partner-sdk/token', body, auth: false });
    this.host.adoptApplicationId(applicationId);
    this.host.expiry.saw(response.access_token, response.expires_in);
    return {
      accessToken: response.access_token,
      refreshToken: response.refresh_token ?? '',
      tokenType: AuthorizationTokenType.Bearer,
      expiresIn: response.expires_in,
      scopes: response.scope,
    };
  }

  updateToken(tokenType: AuthorizationTokenType, token: string): void {
    if (tokenType !== AuthorizationTokenType.Bearer) throw ClientResultError.validation('only Bearer tokens are supported');
    if (typeof token !== 'string' || token.length === 0) throw ClientResultError.validation('token must be a non-empty string');
    this.host.http.token = token.replace(/^Bearer\s+/i, '');
    this.host.expiry.tokenUpdated(this.host.http.token);
  }

  async updateProvisionalAccountDisplayName(name: string): Promise<void> {
    checkDisplayName(name);
    const user = await this.host.http.request<User>({ method: 'PATCH', path: '/users/@me', body: { global_name: name }, auth: true });
    this.host.rememberUser(user, true);
  }
}
