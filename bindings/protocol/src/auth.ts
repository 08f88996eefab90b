/**
 * Accounts and OAuth2: the SDK enums of the auth API (reference/social-sdk-api.md 2.1) and the
 * OAuth2 wire shapes (protocols.md 2.7) shared by the server and the client.
 */

/** IntegrationType: the installation context an app is authorized for. */
export const IntegrationType = {
  /** Installed to a guild, for all its members. */
  GuildInstall: 0,
  /** Installed to the user's own account. */
  UserInstall: 1,
} as const;
export type IntegrationType = (typeof IntegrationType)[keyof typeof IntegrationType];

/** AuthenticationCodeChallengeMethod: PKCE methods; only S256 exists. */
export const AuthenticationCodeChallengeMethod = {
  /** The challenge is the base64url SHA-256 of the verifier (`code_challenge_method=S256`). */
  S256: 0,
} as const;
export type AuthenticationCodeChallengeMethod = (typeof AuthenticationCodeChallengeMethod)[keyof typeof AuthenticationCodeChallengeMethod];

/** Default scope strings (spec, Authentication 2). */
export const DEFAULT_COMMUNICATION_SCOPES = 'openid sdk.social_layer';
/** The default scopes of a game that uses presence only (no messages, lobbies or voice). */
export const DEFAULT_PRESENCE_SCOPES = 'openid sdk.social_layer_presence';

/** The fixed prefix of the default custom-scheme redirect `<prefix>-<application id>:/authorize/callback`. */
export const CUSTOM_SCHEME_PREFIX = 'social-layer';
/** The path after the custom scheme in the default redirect URI. */
export const CUSTOM_SCHEME_REDIRECT_PATH = ':/authorize/callback';

/** OAuth2 `grant_type` values of the token endpoint (RFC 6749, device flow RFC 8628, token exchange RFC 8693). */
export const OAuthGrantType = {
  /** Exchanges an authorization code (with the PKCE `code_verifier`) for tokens. */
  AuthorizationCode: 'authorization_code',
  /** Exchanges a refresh token for a new access token. */
  RefreshToken: 'refresh_token',
  /** The application's own token, authenticated by its client secret; no refresh token. */
  ClientCredentials: 'client_credentials',
  /** Polls for the tokens of a device authorization once the user approved it (RFC 8628). */
  DeviceCode: 'urn:ietf:params:oauth:grant-type:device_code',
  /** Exchanges a parent application's access token for a child application's (RFC 8693). */
  TokenExchange: 'urn:ietf:params:oauth:grant-type:token-exchange',
} as const;

/** The `subject_token_type` of an access token in a token exchange (RFC 8693). */
export const ACCESS_TOKEN_TYPE_URN = 'urn:ietf:params:oauth:token-type:access_token';

/** RFC 6749 error body of the token, revoke and device endpoints; `code` adds a platform code (530xxx) when there is one. */
export interface OAuthErrorBody {
  /** The RFC 6749 error string, for example `invalid_grant` or `invalid_client`. */
  error: string;
  /** What went wrong, for people. */
  error_description?: string;
  /** The platform's JSON error code (530xxx for provisional accounts), when there is one. */
  code?: number;
  /** The platform's message for `code`. */
  message?: string;
}

/** `POST /oauth2/device/authorize` response (RFC 8628). */
export interface DeviceAuthorizationResponse {
  /** The secret the device polls the token endpoint with (grant `device_code`). */
  device_code: string;
  /** The short code the user types at `verification_uri`. */
  user_code: string;
  /** Where the user goes to approve (`/activate`). */
  verification_uri: string;
  /** The same address with the user code filled in (for a QR code or a link). */
  verification_uri_complete: string;
  /** Seconds until the codes expire (300). */
  expires_in: number;
  /** Seconds the device waits between polls (5). */
  interval: number;
}

/** `POST /partner-sdk/provisional-accounts/unmerge` body. */
export interface UnmergeBody {
  /** The application ID. */
  client_id: string;
  /** The client secret; absent for public clients. */
  client_secret?: string;
  /** The provider of the external identity, as a wire name (`EXTERNAL_AUTH_TYPE_WIRE`). */
  external_auth_type: string;
  /** The provider's token proving the external identity to split off again. */
  external_auth_token: string;
}

/** Gateway dispatch asking the game to start its account-link flow (the SDK's AUTHORIZE_REQUEST). */
export const AUTHORIZE_REQUEST_EVENT = 'AUTHORIZE_REQUEST';
