/** Voice gateway v8 opcodes (protocols.md 3.2). */
export const VoiceOpcode = {
  /** Client to server, JSON: `{server_id, user_id, session_id, token, max_dave_protocol_version}` starts the voice session. */
  Identify: 0,
  /** Client to server, JSON: the transport, the client's address and port, and the encryption mode. */
  SelectProtocol: 1,
  /** Server to client, JSON: the client's SSRC, the relay's address and port, and the encryption modes offered. */
  Ready: 2,
  /** Client to server, JSON: `{t: nonce, seq_ack: last sequence received or -1}`. */
  Heartbeat: 3,
  /** Server to client, JSON: the chosen mode, the 32-byte `secret_key` and the DAVE protocol version. */
  SessionDescription: 4,
  /** Both ways, JSON: speaking flags for an SSRC; the server adds `user_id`, and relays nothing of an SSRC before it. */
  Speaking: 5,
  /** Server to client, JSON: `{t}` echoing the heartbeat's nonce. */
  HeartbeatAck: 6,
  /** Client to server, JSON: `{server_id, session_id, token, seq_ack}` picks up a dropped voice session. */
  Resume: 7,
  /** Server to client, JSON: `{heartbeat_interval}` in milliseconds. */
  Hello: 8,
  /** Server to client, JSON: the Resume succeeded; buffered messages follow. */
  Resumed: 9,
  /** Server to client, JSON: `{user_ids}` who joined the call. */
  ClientsConnect: 11,
  /** Server to client, JSON: `{user_id}` who left the call. */
  ClientDisconnect: 13,
  /** Server to client, JSON: `{protocol_version, transition_id}`: a change of encryption is coming. */
  DavePrepareTransition: 21,
  /** Server to client, JSON: `{transition_id}`: switch to the prepared state now. */
  DaveExecuteTransition: 22,
  /** Client to server, JSON: `{transition_id}`: the client is ready for that transition. */
  DaveTransitionReady: 23,
  /** Server to client, JSON: `{protocol_version, epoch}`: a new MLS group (epoch 1) or protocol version. */
  DavePrepareEpoch: 24,
  /** Server to client, binary: the MLS external sender (the voice server) of the group. */
  DaveMlsExternalSender: 25,
  /** Client to server, binary: the client's MLS key package. */
  DaveMlsKeyPackage: 26,
  /** Server to client, binary: MLS proposals to add or remove members. */
  DaveMlsProposals: 27,
  /** Client to server, binary: an MLS commit, with a welcome for added members. */
  DaveMlsCommitWelcome: 28,
  /** Server to client, binary: the commit every member applies, with its transition ID. */
  DaveMlsAnnounceCommitTransition: 29,
  /** Server to client, binary: the welcome that adds this client to the group, with its transition ID. */
  DaveMlsWelcome: 30,
  /** Client to server, JSON: `{transition_id}`: the commit or welcome could not be processed. */
  DaveMlsInvalidCommitWelcome: 31,
} as const;
export type VoiceOpcode = (typeof VoiceOpcode)[keyof typeof VoiceOpcode];

/** Voice close codes (protocols.md 3.4). */
export const VoiceCloseCode = {
  /** The client sent an unknown opcode. */
  UnknownOpcode: 4001,
  /** A payload could not be decoded. */
  DecodeError: 4002,
  /** A payload came before Identify. */
  NotAuthenticated: 4003,
  /** Identify's token or session is wrong. */
  AuthenticationFailed: 4004,
  /** A second Identify on the same socket. */
  AlreadyAuthenticated: 4005,
  /** The voice session is gone; join the call again. */
  SessionNoLongerValid: 4006,
  /** The session timed out (missed heartbeats). */
  SessionTimeout: 4009,
  /** No voice server for that call. */
  ServerNotFound: 4011,
  /** Select Protocol named a transport the server does not offer. */
  UnknownProtocol: 4012,
  /** Kicked from the call, or the main Gateway session dropped; do not reconnect. */
  Disconnected: 4014,
  /** The voice server restarted; resume. */
  VoiceServerCrashed: 4015,
  /** Select Protocol named an encryption mode the server does not offer. */
  UnknownEncryptionMode: 4016,
  /** The call requires DAVE end-to-end encryption and the client did not offer it. */
  E2eeRequired: 4017,
  /** A malformed request. */
  BadRequest: 4020,
  /** The client sent too much; do not reconnect. */
  RateLimited: 4021,
  /** The call ended; do not reconnect. */
  CallTerminated: 4022,
} as const;
export type VoiceCloseCode = (typeof VoiceCloseCode)[keyof typeof VoiceCloseCode];

/** Codes after which a voice client may Resume (protocols.md 3.3: 4015 and anything below 4000). */
export function voiceCloseIsResumable(code: number): boolean {
  return code === VoiceCloseCode.VoiceServerCrashed || code < 4000;
}

/** Speaking flags (protocols.md 3.8). */
export const SpeakingFlags = {
  /** Normal voice from the microphone. */
  Microphone: 1 << 0,
  /** Shared sound from an application; no speaking indicator. */
  Soundshare: 1 << 1,
  /** Priority speaker: others are made quieter while this one speaks. */
  Priority: 1 << 2,
} as const;

/** The voice gateway protocol version (`?v=8`): buffered resume with `seq_ack`. */
export const VOICE_GATEWAY_VERSION = 8;
/** The DAVE end-to-end encryption protocol version clients announce (`max_dave_protocol_version`). */
export const DAVE_PROTOCOL_VERSION = 1;

/** Voice transports this platform offers (contracts-voice.md 2). */
export const VoiceTransport = {
  /** RTP over UDP to the relay, after IP discovery (native clients and discord.js). */
  Udp: 'udp',
  /** RTP packets as binary messages on a second WebSocket to the relay (`/voice/media`). */
  WebSocket: 'websocket',
  /** RTP packets on an unordered, no-retransmit WebRTC data channel `media` to the relay. */
  WebRtc: 'webrtc',
} as const;
export type VoiceTransport = (typeof VoiceTransport)[keyof typeof VoiceTransport];

/** Largest RTP packet the relay accepts, in bytes. */
export const VOICE_MAX_PACKET_BYTES = 1500;

/** Main-Gateway voice dispatch payloads (contracts-voice.md 1). */
export interface VoiceState {
  /** The call: the lobby's ID (for a guild voice channel's call, that channel's ID). */
  lobby_id: string;
  /** The call the user is in (the same ID as `lobby_id`), or null once they left. */
  channel_id: string | null;
  /** Whose voice state it is. */
  user_id: string;
  /** The user's voice session, for Identify on the voice gateway. */
  session_id: string;
  /** The user muted their own microphone. */
  self_mute: boolean;
  /** The user deafened themselves (hears nothing). */
  self_deaf: boolean;
  /** Muted by a moderator (a guild member's server mute; always false in lobby calls). */
  mute: boolean;
  /** Deafened by a moderator (a guild member's server deafen; always false in lobby calls). */
  deaf: boolean;
  /** The user sends video (always false: calls carry audio only). */
  self_video: boolean;
  /** The user may not speak: in a guild voice channel without the Speak permission; always false in lobby calls. */
  suppress: boolean;
  /** Ours: why a join failed (an ApiErrorCode), when it did. */
  error_code?: number;
}

/** VOICE_SERVER_UPDATE: where a lobby call's voice gateway is and the token to identify there. */
export interface VoiceServerUpdate {
  /** The token for Identify on the voice gateway; valid for this call only. */
  token: string;
  /** Always null: lobby calls belong to no guild. */
  guild_id: null;
  /** The lobby whose call it is. */
  lobby_id: string;
  /** The voice gateway as `host:port` (no scheme; connect to `wss://<endpoint>?v=8`). */
  endpoint: string;
}

/** Gateway op 4 (Voice State Update): join, move or leave a call, and set self mute and deafen. */
export interface VoiceStateUpdateCommand {
  /** Null or absent for lobby calls. */
  guild_id?: string | null;
  /** The lobby whose call to join, or null to leave. */
  channel_id: string | null;
  /** Join muted, or change self mute. */
  self_mute: boolean;
  /** Join deafened, or change self deafen. */
  self_deaf: boolean;
}
