/** Voice gateway v8 opcodes (protocols.md 3.2). */
export const VoiceOpcode = {
  Identify: 0,
  SelectProtocol: 1,
  Ready: 2,
  Heartbeat: 3,
  SessionDescription: 4,
  Speaking: 5,
  HeartbeatAck: 6,
  Resume: 7,
  Hello: 8,
  Resumed: 9,
  ClientsConnect: 11,
  ClientDisconnect: 13,
  DavePrepareTransition: 21,
  DaveExecuteTransition: 22,
  DaveTransitionReady: 23,
  DavePrepareEpoch: 24,
  DaveMlsExternalSender: 25,
  DaveMlsKeyPackage: 26,
  DaveMlsProposals: 27,
  DaveMlsCommitWelcome: 28,
  DaveMlsAnnounceCommitTransition: 29,
  DaveMlsWelcome: 30,
  DaveMlsInvalidCommitWelcome: 31,
} as const;
export type VoiceOpcode = (typeof VoiceOpcode)[keyof typeof VoiceOpcode];

/** Voice close codes (protocols.md 3.4). */
export const VoiceCloseCode = {
  UnknownOpcode: 4001,
  DecodeError: 4002,
  NotAuthenticated: 4003,
  AuthenticationFailed: 4004,
  AlreadyAuthenticated: 4005,
  SessionNoLongerValid: 4006,
  SessionTimeout: 4009,
  ServerNotFound: 4011,
  UnknownProtocol: 4012,
  Disconnected: 4014,
  VoiceServerCrashed: 4015,
  UnknownEncryptionMode: 4016,
  E2eeRequired: 4017,
  BadRequest: 4020,
  RateLimited: 4021,
  CallTerminated: 4022,
} as const;
export type VoiceCloseCode = (typeof VoiceCloseCode)[keyof typeof VoiceCloseCode];

/** Codes after which a voice client may Resume (protocols.md 3.3: 4015 and anything below 4000). */
export function voiceCloseIsResumable(code: number): boolean {
  return code === VoiceCloseCode.VoiceServerCrashed || code < 4000;
}

/** Speaking flags (protocols.md 3.8). */
export const SpeakingFlags = {
  Microphone: 1 << 0,
  Soundshare: 1 << 1,
  Priority: 1 << 2,
} as const;

export const VOICE_GATEWAY_VERSION = 8;
export const DAVE_PROTOCOL_VERSION = 1;

/** Voice transports this platform offers (contracts-voice.md 2). */
export const VoiceTransport = {
  Udp: 'udp',
  WebSocket: 'websocket',
  WebRtc: 'webrtc',
} as const;
export type VoiceTransport = (typeof VoiceTransport)[keyof typeof VoiceTransport];

/** Largest RTP packet the relay accepts, in bytes. */
export const VOICE_MAX_PACKET_BYTES = 1500;

/** Main-Gateway voice dispatch payloads (contracts-voice.md 1). */
export interface VoiceState {
  lobby_id: string;
  channel_id: string | null;
  user_id: string;
  session_id: string;
  self_mute: boolean;
  self_deaf: boolean;
  mute: boolean;
  deaf: boolean;
  self_video: boolean;
  suppress: boolean;
  error_code?: number;
}

export interface VoiceServerUpdate {
  token: string;
  guild_id: null;
  lobby_id: string;
  endpoint: string;
}

export interface VoiceStateUpdateCommand {
  guild_id?: string | null;
  channel_id: string | null;
  self_mute: boolean;
  self_deaf: boolean;
}
