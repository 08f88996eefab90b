/**
 * Codes that cross the WASM boundary. This file is the one TS source for them; the
 * AssemblyScript copy in assembly/generated/enums.ts is generated from it by
 * scripts/genEnums.ts (DESIGN.md convention 2) and a test checks that the two match.
 */

/** Kinds of the events that LobbyState.drainEvents() returns (docs/contracts.md). */
export const LobbyEventKind = {
  /** A lobby appeared. */
  LobbyCreated: 1,
  /** A lobby went away. */
  LobbyDeleted: 2,
  /** A lobby's metadata changed. */
  LobbyUpdated: 3,
  /** A member joined. */
  MemberAdded: 4,
  /** A member left. */
  MemberRemoved: 5,
  /** A member's metadata, flags or connection changed. */
  MemberUpdated: 6,
} as const;
export type LobbyEventKind = (typeof LobbyEventKind)[keyof typeof LobbyEventKind];

/** AEAD algorithms of the core (aeadCreate). */
export const AeadAlgorithm = {
  /** AES-256-GCM. */
  Aes256Gcm: 1,
  /** XChaCha20-Poly1305 (24-byte nonce). */
  XChaCha20Poly1305: 2,
  /** ChaCha20-Poly1305 (12-byte nonce). */
  ChaCha20Poly1305: 3,
  /** AES-128-GCM (DAVE frames). */
  Aes128Gcm: 4,
} as const;
export type AeadAlgorithm = (typeof AeadAlgorithm)[keyof typeof AeadAlgorithm];

/** Negative results of the packet and frame functions (0 and up mean a length). */
export const CoreError = {
  /** Shorter than the smallest valid packet or frame. */
  TooShort: -1,
  /** Longer than the buffer or the protocol allows. */
  TooLong: -2,
  /** RTP version is not 2. */
  BadVersion: -3,
  /** Tag mismatch: forged, corrupted or wrong key/nonce. Nothing was decrypted. */
  AuthFailed: -4,
  /** RTP header extension longer than the payload. */
  BadExtension: -5,
  /** RTP padding count of 0 or longer than the payload. */
  BadPadding: -6,
  /** The output buffer is too small. */
  NoRoom: -7,
  /** DAVE frame: bad marker, size byte, ULEB128 or ranges. */
  BadFrame: -8,
  /** An argument out of range (unknown algorithm, bad key length). */
  BadArgument: -9,
  /** DAVE frame: this nonce was already decrypted (replay). */
  Replayed: -10,
  /** DAVE frame: no key for the frame's generation. */
  NoKey: -11,
} as const;
export type CoreError = (typeof CoreError)[keyof typeof CoreError];

/** Outcome of JitterBuffer.push(). */
export const JitterPush = {
  /** Stored for its turn. */
  Stored: 0,
  /** Already held: dropped. */
  Duplicate: 1,
  /** Its turn to play has passed. */
  Late: 2,
  /** Larger than a slot. */
  TooLarge: 3,
  /** Too far ahead of the playout point: the buffer restarted from this packet. */
  Reset: 4,
} as const;
export type JitterPush = (typeof JitterPush)[keyof typeof JitterPush];

/** Negative outcomes of JitterBuffer.pop() (0 and up: a frame of that many bytes). */
export const JitterPop = {
  /** Still filling to the target depth, or nothing buffered: play nothing (or comfort noise). */
  Empty: -1,
  /** The next frame is missing: run packet-loss concealment for one frame. */
  Lost: -2,
} as const;
export type JitterPop = (typeof JitterPop)[keyof typeof JitterPop];
