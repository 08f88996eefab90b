/** Gateway v10 opcodes (reference/protocols.md 1.4). */
export const GatewayOpcode = {
  Dispatch: 0,
  Heartbeat: 1,
  Identify: 2,
  PresenceUpdate: 3,
  VoiceStateUpdate: 4,
  Resume: 6,
  Reconnect: 7,
  RequestGuildMembers: 8,
  InvalidSession: 9,
  Hello: 10,
  HeartbeatAck: 11,
  RequestSoundboardSounds: 31,
  RequestChannelInfo: 43,
} as const;
export type GatewayOpcode = (typeof GatewayOpcode)[keyof typeof GatewayOpcode];

/** Gateway close codes (reference/protocols.md 1.9). */
export const GatewayCloseCode = {
  UnknownError: 4000,
  UnknownOpcode: 4001,
  DecodeError: 4002,
  NotAuthenticated: 4003,
  AuthenticationFailed: 4004,
  AlreadyAuthenticated: 4005,
  InvalidSeq: 4007,
  RateLimited: 4008,
  SessionTimedOut: 4009,
  InvalidShard: 4010,
  ShardingRequired: 4011,
  InvalidApiVersion: 4012,
  InvalidIntents: 4013,
  DisallowedIntents: 4014,
} as const;
export type GatewayCloseCode = (typeof GatewayCloseCode)[keyof typeof GatewayCloseCode];

/** Close codes after which a client must not reconnect on its own. */
export const FATAL_CLOSE_CODES: ReadonlySet<number> = new Set([4004, 4010, 4011, 4012, 4013, 4014]);
/**
 * Close codes after which the session is gone: reconnect with a fresh Identify, not Resume.
 * Every other code (4000, 4001, 4002, 4009, unknown) is worth a Resume, as @discordjs/ws does
 * (protocols.md 1.9); the server answers Invalid Session when it cannot resume.
 */
export const NEW_SESSION_CLOSE_CODES: ReadonlySet<number> = new Set([1000, 4003, 4005, 4007, 4008]);

/**
 * Dispatch event names. The lobby events are our choice: the public system does not document
 * how SDK clients receive lobby updates (protocols.md 2.6 GAP), so they follow the Gateway's
 * RESOURCE_VERB naming and the documented LOBBY_MESSAGE_* webhook names.
 */
export const DispatchEvent = {
  Ready: 'READY',
  Resumed: 'RESUMED',
  LobbyCreate: 'LOBBY_CREATE',
  LobbyUpdate: 'LOBBY_UPDATE',
  LobbyDelete: 'LOBBY_DELETE',
  LobbyMemberAdd: 'LOBBY_MEMBER_ADD',
  LobbyMemberUpdate: 'LOBBY_MEMBER_UPDATE',
  LobbyMemberRemove: 'LOBBY_MEMBER_REMOVE',
  LobbyMessageCreate: 'LOBBY_MESSAGE_CREATE',
  VoiceStateUpdate: 'VOICE_STATE_UPDATE',
  VoiceServerUpdate: 'VOICE_SERVER_UPDATE',
} as const;
export type DispatchEvent = (typeof DispatchEvent)[keyof typeof DispatchEvent];

/** Limits the Gateway enforces (protocols.md 1.3 and 1.14). */
export const GatewayLimits = {
  /** Largest client payload in bytes; larger ones close the socket with 4002. */
  maxPayloadBytes: 4096,
  /** Client payloads allowed per window before close 4008. */
  sendsPerWindow: 120,
  sendWindowMs: 60_000,
  /** Default heartbeat interval announced in Hello. */
  heartbeatIntervalMs: 41_250,
} as const;

export const GATEWAY_VERSION = 10;
