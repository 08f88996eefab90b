/**
 * Wire constants of the local RPC transport (protocols.md 5). One definition, used by the
 * companion's server side and by the Node client.
 */

/** IPC frame opcodes: u32 LE opcode, u32 LE length, then that many bytes of UTF-8 JSON. */
export const IpcOpcode = {
  Handshake: 0,
  Frame: 1,
  Close: 2,
  Ping: 3,
  Pong: 4,
} as const;
export type IpcOpcode = (typeof IpcOpcode)[keyof typeof IpcOpcode];

/** The protocol version a HANDSHAKE must carry in `v`. */
export const RPC_VERSION = 1;

/**
 * Largest frame, header included: the official C library's cap (64 KiB). A frame of 65536 bytes
 * is served; 65537 closes the connection.
 */
export const MAX_FRAME_BYTES = 64 * 1024;
export const FRAME_HEADER_BYTES = 8;

/** Codes carried by CLOSE frames (the documented RPC close codes). */
export const RpcCloseCode = {
  /** Normal end (a client's own CLOSE, the companion shutting down). */
  Normal: 1000,
  InvalidClientId: 4000,
  InvalidOrigin: 4001,
  RateLimited: 4002,
  TokenRevoked: 4003,
  InvalidVersion: 4004,
  /** Our use: anything that is not a well-formed frame sequence (bad JSON, size, opcode, order). */
  InvalidEncoding: 4005,
} as const;
export type RpcCloseCode = (typeof RpcCloseCode)[keyof typeof RpcCloseCode];

/** Codes carried by ERROR events (`evt: "ERROR"`, `data: {code, message}`). */
export const RpcErrorCode = {
  UnknownError: 1000,
  InvalidPayload: 4000,
  InvalidCommand: 4002,
  InvalidGuild: 4003,
  InvalidEvent: 4004,
  InvalidChannel: 4005,
  InvalidPermissions: 4006,
  InvalidClientId: 4007,
  InvalidOrigin: 4008,
  InvalidToken: 4009,
  InvalidUser: 4010,
  OAuth2Error: 5000,
  SelectChannelTimedOut: 5001,
  GetGuildTimedOut: 5002,
  SelectVoiceForceRequired: 5003,
  CaptureShortcutAlreadyListening: 5004,
} as const;
export type RpcErrorCode = (typeof RpcErrorCode)[keyof typeof RpcErrorCode];

export const RpcCommand = {
  Dispatch: 'DISPATCH',
  Authorize: 'AUTHORIZE',
  Authenticate: 'AUTHENTICATE',
  GetGuild: 'GET_GUILD',
  GetGuilds: 'GET_GUILDS',
  GetChannel: 'GET_CHANNEL',
  GetChannels: 'GET_CHANNELS',
  Subscribe: 'SUBSCRIBE',
  Unsubscribe: 'UNSUBSCRIBE',
  SetActivity: 'SET_ACTIVITY',
  SendActivityJoinInvite: 'SEND_ACTIVITY_JOIN_INVITE',
  /** The C library's and discord-rpc's spelling. */
  CloseActivityJoinRequest: 'CLOSE_ACTIVITY_JOIN_REQUEST',
  /** The documented spelling of the same command. */
  CloseActivityRequest: 'CLOSE_ACTIVITY_REQUEST',
} as const;
export type RpcCommand = (typeof RpcCommand)[keyof typeof RpcCommand];

export const RpcEvent = {
  Ready: 'READY',
  Error: 'ERROR',
  GuildStatus: 'GUILD_STATUS',
  ActivityJoin: 'ACTIVITY_JOIN',
  ActivitySpectate: 'ACTIVITY_SPECTATE',
  ActivityJoinRequest: 'ACTIVITY_JOIN_REQUEST',
  ActivityInvite: 'ACTIVITY_INVITE',
  CurrentUserUpdate: 'CURRENT_USER_UPDATE',
  RelationshipUpdate: 'RELATIONSHIP_UPDATE',
  MessageCreate: 'MESSAGE_CREATE',
  MessageUpdate: 'MESSAGE_UPDATE',
  MessageDelete: 'MESSAGE_DELETE',
} as const;
export type RpcEvent = (typeof RpcEvent)[keyof typeof RpcEvent];

/** SET_ACTIVITY accepts these activity types only (spec: 0, 2, 3 and 5). */
export const RPC_ACTIVITY_TYPES: readonly number[] = [0, 2, 3, 5];
