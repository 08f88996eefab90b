/** Gateway v10 opcodes (reference/protocols.md 1.4). */
export const GatewayOpcode = {
  /** Server to client: an event (`t` its name, `s` its sequence number). */
  Dispatch: 0,
  /** Both ways: the client's keep-alive carrying the last sequence number; the server may send it to ask for one now. */
  Heartbeat: 1,
  /** Client to server: starts a session with the token, properties and intents. */
  Identify: 2,
  /** Client to server: sets the user's status and activities. */
  PresenceUpdate: 3,
  /** Client to server: joins, moves or leaves a call, and sets self mute and deafen. */
  VoiceStateUpdate: 4,
  /** Client to server: picks up a dropped session (token, `session_id`, last `seq`) on a new socket. */
  Resume: 6,
  /** Server to client: reconnect and resume; the server closes the socket soon after. */
  Reconnect: 7,
  /** Client to server: asks for a guild's members, answered by GUILD_MEMBERS_CHUNK dispatches. */
  RequestGuildMembers: 8,
  /** Server to client: Identify or Resume failed; `d` says whether the session may still be resumed. */
  InvalidSession: 9,
  /** Server to client, first on a new socket: the `heartbeat_interval` in milliseconds. */
  Hello: 10,
  /** Server to client: the answer to a Heartbeat. */
  HeartbeatAck: 11,
  /** Client to server: asks for guilds' soundboard sounds (SOUNDBOARD_SOUNDS dispatches). */
  RequestSoundboardSounds: 31,
  /** Client to server: asks for voice channels' `status` and `voice_start_time` (a CHANNEL_INFO dispatch). */
  RequestChannelInfo: 43,
} as const;
export type GatewayOpcode = (typeof GatewayOpcode)[keyof typeof GatewayOpcode];

/** Gateway close codes (reference/protocols.md 1.9). */
export const GatewayCloseCode = {
  /** Something went wrong on the server; reconnect and resume. */
  UnknownError: 4000,
  /** The client sent an opcode it may not send, or a payload invalid for its opcode; resumable. */
  UnknownOpcode: 4001,
  /** The payload could not be decoded or was over 4096 bytes; resumable. */
  DecodeError: 4002,
  /** A payload other than Identify or Resume came before the session started; reconnect with a new Identify. */
  NotAuthenticated: 4003,
  /** The token in Identify is invalid; fatal, do not reconnect. */
  AuthenticationFailed: 4004,
  /** A second Identify or Resume on the same socket; reconnect with a new Identify. */
  AlreadyAuthenticated: 4005,
  /** Resume named a sequence number the server cannot replay from; reconnect with a new Identify. */
  InvalidSeq: 4007,
  /** More than 120 payloads in 60 s; reconnect with a new Identify. */
  RateLimited: 4008,
  /** The session expired (missed heartbeats); reconnect. */
  SessionTimedOut: 4009,
  /** Identify named an invalid shard; fatal. */
  InvalidShard: 4010,
  /** The session would hold too many guilds without sharding; fatal. */
  ShardingRequired: 4011,
  /** The `v` query parameter is not a version the Gateway speaks (10); fatal. */
  InvalidApiVersion: 4012,
  /** Identify's `intents` holds unknown bits; fatal. */
  InvalidIntents: 4013,
  /** Identify asked for a privileged intent the application is not allowed; fatal. */
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
  /** The session started: the user, application, lobbies and `session_id` (ReadyData). */
  Ready: 'READY',
  /** A Resume succeeded; the missed dispatches came before it. */
  Resumed: 'RESUMED',
  /** A lobby became available to the user: created with them in it, or they were added (a Lobby). */
  LobbyCreate: 'LOBBY_CREATE',
  /** A lobby the user is in changed, for example its metadata or linked channel (a Lobby). */
  LobbyUpdate: 'LOBBY_UPDATE',
  /** A lobby is gone for the user: deleted, or they were removed (`{id}`). */
  LobbyDelete: 'LOBBY_DELETE',
  /** Another user joined a lobby the user is in (`lobby_id` and the member). */
  LobbyMemberAdd: 'LOBBY_MEMBER_ADD',
  /** A lobby member changed: metadata, flags, name, or connected to or disconnected from the Gateway. */
  LobbyMemberUpdate: 'LOBBY_MEMBER_UPDATE',
  /** A member left or was removed from a lobby the user is in (`lobby_id` and the member). */
  LobbyMemberRemove: 'LOBBY_MEMBER_REMOVE',
  /** A message was sent in a lobby the user is in (a LobbyMessage). */
  LobbyMessageCreate: 'LOBBY_MESSAGE_CREATE',
  /** Someone joined, left or changed mute or deafen in a lobby call the user can see (a VoiceState). */
  VoiceStateUpdate: 'VOICE_STATE_UPDATE',
  /** Where the user's lobby call is served and the token to identify there (VoiceServerUpdate). */
  VoiceServerUpdate: 'VOICE_SERVER_UPDATE',
} as const;
export type DispatchEvent = (typeof DispatchEvent)[keyof typeof DispatchEvent];

/** Limits the Gateway enforces (protocols.md 1.3 and 1.14). */
export const GatewayLimits = {
  /** Largest client payload in bytes; larger ones close the socket with 4002. */
  maxPayloadBytes: 4096,
  /** Client payloads allowed per window before close 4008. */
  sendsPerWindow: 120,
  /** Length of that window, in milliseconds. */
  sendWindowMs: 60_000,
  /** Default heartbeat interval announced in Hello. */
  heartbeatIntervalMs: 41_250,
} as const;

/** The Gateway protocol version this platform speaks (`?v=10` in the Gateway URL). */
export const GATEWAY_VERSION = 10;
