/**
 * Enums of the Client API with the values of the native SDK (reference/social-sdk-api.md).
 * Kept here, beside the wire codes, so the client, the server and core-wasm's generated copy
 * share one definition.
 */

/** Client::Status. */
export const ClientStatus = {
  Disconnected: 0,
  Connecting: 1,
  Connected: 2,
  Ready: 3,
  Reconnecting: 4,
  Disconnecting: 5,
  HttpWait: 6,
} as const;
export type ClientStatus = (typeof ClientStatus)[keyof typeof ClientStatus];

/** Client::Error. */
export const ClientError = {
  None: 0,
  ConnectionFailed: 1,
  UnexpectedClose: 2,
  ConnectionCanceled: 3,
} as const;
export type ClientError = (typeof ClientError)[keyof typeof ClientError];

/** ErrorType of a ClientResult. */
export const ErrorType = {
  None: 0,
  NetworkError: 1,
  HTTPError: 2,
  ClientNotReady: 3,
  Disabled: 4,
  ClientDestroyed: 5,
  ValidationError: 6,
  Aborted: 7,
  AuthorizationFailed: 8,
  RPCError: 9,
} as const;
export type ErrorType = (typeof ErrorType)[keyof typeof ErrorType];

/** LoggingSeverity. */
export const LoggingSeverity = {
  Verbose: 1,
  Info: 2,
  Warning: 3,
  Error: 4,
  None: 5,
} as const;
export type LoggingSeverity = (typeof LoggingSeverity)[keyof typeof LoggingSeverity];

/** AuthorizationTokenType. */
export const AuthorizationTokenType = {
  User: 0,
  Bearer: 1,
} as const;
export type AuthorizationTokenType = (typeof AuthorizationTokenType)[keyof typeof AuthorizationTokenType];

/**
 * AuthenticationExternalAuthType. `DeviceId` (100) is a Social Layer extension: the public-client
 * path for web games without a backend, where the external identity is a random device ID the
 * game keeps in local storage. The values below 100 are the native SDK's.
 */
export const AuthenticationExternalAuthType = {
  OIDC: 0,
  EpicOnlineServicesAccessToken: 1,
  EpicOnlineServicesIdToken: 2,
  SteamSessionTicket: 3,
  UnityServicesIdToken: 4,
  DiscordBotIssuedAccessToken: 5,
  AppleIdToken: 6,
  PlayStationNetworkIdToken: 7,
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
  GuildText: 0,
  Dm: 1,
  GuildVoice: 2,
  GroupDm: 3,
  Lobby: 17,
  EphemeralDm: 18,
} as const;
export type ChannelType = (typeof ChannelType)[keyof typeof ChannelType];
