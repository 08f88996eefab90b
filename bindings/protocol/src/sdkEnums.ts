/**
 * Enums of the Client API with the values of the native SDK (reference/social-sdk-api.md).
 * Kept here, beside the wire codes, so the client, the server and core-wasm's generated copy
 * share one definition.
 */

/** Client::Status. */
export const ClientStatus = {
  /** No Gateway connection; also where a disconnect ends. */
  Disconnected: 0,
  /** The socket is opening and the token being exchanged. */
  Connecting: 1,
  /** The socket is open and identified; the initial payload has not arrived yet. */
  Connected: 2,
  /** READY arrived (user, lobbies, friends): the client is safe to use. */
  Ready: 3,
  /** The connection dropped and the client is resuming on its own. */
  Reconnecting: 4,
  /** A disconnect is in progress. */
  Disconnecting: 5,
  /** The native SDK's; undocumented there, and never reported by this client. */
  HttpWait: 6,
} as const;
export type ClientStatus = (typeof ClientStatus)[keyof typeof ClientStatus];

/** Client::Error. */
export const ClientError = {
  /** No error. */
  None: 0,
  /** The Gateway could not be reached. */
  ConnectionFailed: 1,
  /** The Gateway closed the connection, for example on a bad or expired token; the close code is the error detail. */
  UnexpectedClose: 2,
  /** The connection attempt was cancelled. */
  ConnectionCanceled: 3,
} as const;
export type ClientError = (typeof ClientError)[keyof typeof ClientError];

/** ErrorType of a ClientResult. */
export const ErrorType = {
  /** Success. */
  None: 0,
  /** The request did not reach the server or got no answer. */
  NetworkError: 1,
  /** The server answered with an error status; the result carries the status and the JSON error code. */
  HTTPError: 2,
  /** The operation needs a Ready client: connect first and wait for Ready. */
  ClientNotReady: 3,
  /** The feature is switched off for now (the native SDK's: temporarily disabled for stability). */
  Disabled: 4,
  /** The client was destroyed before the operation finished. */
  ClientDestroyed: 5,
  /** The input failed a local check, or a precondition failed; nothing was sent or changed. */
  ValidationError: 6,
  /** The user or the game aborted the operation, for example closed the authorization popup. */
  Aborted: 7,
  /** The authorization was refused or failed on the server. */
  AuthorizationFailed: 8,
  /** The local client answered an RPC command with a failure. */
  RPCError: 9,
} as const;
export type ErrorType = (typeof ErrorType)[keyof typeof ErrorType];

/** LoggingSeverity. */
export const LoggingSeverity = {
  /** Everything, including per-message detail. */
  Verbose: 1,
  /** Informational messages and above. */
  Info: 2,
  /** Warnings and errors. */
  Warning: 3,
  /** Errors only. */
  Error: 4,
  /** Nothing is logged. */
  None: 5,
} as const;
export type LoggingSeverity = (typeof LoggingSeverity)[keyof typeof LoggingSeverity];

/** AuthorizationTokenType. */
export const AuthorizationTokenType = {
  /** A desktop-app user token; not usable by the SDK. */
  User: 0,
  /** An OAuth2 Bearer access token: the kind the SDK uses. */
  Bearer: 1,
} as const;
export type AuthorizationTokenType = (typeof AuthorizationTokenType)[keyof typeof AuthorizationTokenType];

/**
 * AuthenticationExternalAuthType. `DeviceId` (100) is a Social Layer extension: the public-client
 * path for web games without a backend, where the external identity is a random device ID the
 * game keeps in local storage. The values below 100 are the native SDK's.
 */
export const AuthenticationExternalAuthType = {
  /** An OpenID Connect ID token from the issuer configured for the application. */
  OIDC: 0,
  /** An Epic Online Services access token. */
  EpicOnlineServicesAccessToken: 1,
  /** An Epic Online Services ID token. */
  EpicOnlineServicesIdToken: 2,
  /** A Steam session ticket. */
  SteamSessionTicket: 3,
  /** A Unity Services ID token. */
  UnityServicesIdToken: 4,
  /** The access token of a provisional account the game backend created with its bot token. */
  DiscordBotIssuedAccessToken: 5,
  /** A Sign in with Apple ID token. */
  AppleIdToken: 6,
  /** A PlayStation Network ID token. */
  PlayStationNetworkIdToken: 7,
  /** Social Layer: a random device ID the game keeps in local storage (public clients with no backend). */
  DeviceId: 100,
} as const;
export type AuthenticationExternalAuthType =
  (typeof AuthenticationExternalAuthType)[keyof typeof AuthenticationExternalAuthType];

/** The wire names of AuthenticationExternalAuthType (`external_auth_type`, protocols.md 2.7). */
export const EXTERNAL_AUTH_TYPE_WIRE: Record<AuthenticationExternalAuthType, string> = {
  0: 'OIDC',
  1: 'EPIC_ONLINE_SERVICES_ACCESS_TOKEN',
  2: 'EPIC_ONLINE_SERVICES_ID_TOKEN',
  3: 'STEAM_SESSION_TICKET',
  4: 'UNITY_SERVICES_ID_TOKEN',
  5: 'DISCORD_BOT_ISSUED_ACCESS_TOKEN',
  6: 'APPLE_ID_TOKEN',
  7: 'PLAYSTATION_NETWORK_ID_TOKEN',
  100: 'DEVICE_ID',
};

/** ChannelType (the values the SDK receives messages on). */
export const ChannelType = {
  /** A guild text channel (what a lobby can be linked to). */
  GuildText: 0,
  /** A direct message channel between two users. */
  Dm: 1,
  /** A guild voice channel. */
  GuildVoice: 2,
  /** A direct message channel between several users. */
  GroupDm: 3,
  /** A lobby: the channel ID is the lobby ID. */
  Lobby: 17,
  /** A direct message kept only for a while (a provisional user or a non-friend); the channel ID is the other user's ID. */
  EphemeralDm: 18,
} as const;
export type ChannelType = (typeof ChannelType)[keyof typeof ChannelType];
