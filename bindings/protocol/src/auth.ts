/**
 * Accounts and OAuth2: the SDK enums of the auth API (reference/social-sdk-api.md 2.1) and the
 * OAuth2 wire shapes (protocols.md 2.7) shared by the server and the client.
 */

/** IntegrationType: the installation context an app is authorized for. */
export const IntegrationType = {
  GuildInstall: 0,
  UserInstall: 1,
} as const;
export type IntegrationType = (typeof IntegrationType)[keyof typeof IntegrationType];

/** AuthenticationCodeChallengeMethod: PKCE methods; only S256 exists. */
export const AuthenticationCodeChallengeMethod = {
  S256: 0,
} as const;
export type AuthenticationCodeChallengeMethod = (typeof AuthenticationCodeChallengeMethod)[keyof typeof AuthenticationCodeChallengeMethod];

/** Default scope strings (spec, Authentication 2). */
export const DEFAULT_COMMUNICATION_SCOPES = 'openid sdk.social_layer';
export const DEFAULT_PRESENCE_SCOPES = 'openid sdk.social_layer_presence';

/** The fixed prefix of the default custom-scheme redirect `<prefix>-<application id>:/authorize/callback`. */
export const CUSTOM_SCHEME_PREFIX = 'social-layer';
export const CUSTOM_SCHEME_REDIRECT_PATH = ':/authorize/callback';

export const OAuthGrantType = {
  AuthorizationCode: 'authorization_code',
  RefreshToken: 'refresh_token',
  ClientCredentials: 'client_credentials',
  DeviceCode: 'urn:ietf:params:oauth:grant-type:device_code',
  TokenExchange: 'urn:ietf:params:oauth:grant-type:token-exchange',
} as const;

export const ACCESS_TOKEN_TYPE_URN = 'urn:ietf:params:oauth:token-type:access_token';

/** RFC 6749 error body of the token, revoke and device endpoints; `code` adds a platform code (530xxx) when there is one. */
export interface OAuthErrorBody {
  error: string;
  error_description?: string;
  code?: number;
  message?: string;
}

/** `POST /oauth2/device/authorize` response (RFC 8628). */
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** `POST /partner-sdk/provisional-accounts/unmerge` body. */
export interface UnmergeBody {
  client_id: string;
  client_secret?: string;
  external_auth_type: string;
  external_auth_token: string;
}

/** Gateway dispatch asking the game to start its account-link flow (the SDK's AUTHORIZE_REQUEST). */
export const AUTHORIZE_REQUEST_EVENT = 'AUTHORIZE_REQUEST';
