import type { AeadAlgorithm } from '../enums.ts';

/**
 * Voice transport encryption modes (protocols.md 3.7), in order of preference. The deprecated
 * `xsalsa20_poly1305*` and non-rtpsize `aead_aes256_gcm` modes are not offered for new sessions.
 */
export const TransportMode = {
  /** `aead_aes256_gcm_rtpsize`: AES-256-GCM, the RTP header (up to the extension) as associated data. */
  Aes256GcmRtpsize: 'aead_aes256_gcm_rtpsize',
  /** `aead_xchacha20_poly1305_rtpsize`: XChaCha20-Poly1305, the same framing. */
  XChaCha20Poly1305Rtpsize: 'aead_xchacha20_poly1305_rtpsize',
} as const;
export type TransportMode = (typeof TransportMode)[keyof typeof TransportMode];

/** The voice transport encryption modes this core offers, the preferred first. */
export const SUPPORTED_TRANSPORT_MODES: readonly TransportMode[] = [
  TransportMode.Aes256GcmRtpsize,
  TransportMode.XChaCha20Poly1305Rtpsize,
];

/** Modes the reference system discontinued on 2024-11-18; never offered, never accepted. */
export const DEPRECATED_TRANSPORT_MODES: readonly string[] = [
  'xsalsa20_poly1305_lite_rtpsize',
  'aead_aes256_gcm',
  'xsalsa20_poly1305',
  'xsalsa20_poly1305_suffix',
  'xsalsa20_poly1305_lite',
];

/** Whether `mode` is one of the supported transport encryption modes. */
export function isTransportMode(mode: string): mode is TransportMode {
  return (SUPPORTED_TRANSPORT_MODES as readonly string[]).includes(mode);
}

/** Tag (16) + nonce suffix (4) that sealing appends to a packet. */
export const TRANSPORT_OVERHEAD = 20;

/**
 * The transport AEAD for one key (one direction of one voice connection). Packets are
 * processed in place in the caller's buffer: no allocation on the core-wasm backend, and no
 * copy either when the buffer comes from the backend's `allocate`.
 */
export interface TransportCipher {
  /** The transport mode it implements. */
  readonly mode: TransportMode;
  /**
   * Encrypts packet[0, length) (RTP header, extension body, media frame) in place and appends
   * tag and nonce; `packet` needs room for length + 20 bytes. The nonce is the next counter
   * value (first packet 1, wrapping after 2^32 - 1) unless given. Returns the packet's new
   * length or a negative CoreError.
   */
  seal(packet: Uint8Array, length: number, nonce?: number): number;
  /**
   * Authenticates and decrypts packet[0, length) in place. Returns the media frame's length,
   * with the frame at `frameOffset` (extension body and RTP padding stripped), or a negative
   * CoreError (AuthFailed leaves the packet unchanged).
   */
  open(packet: Uint8Array, length: number): number;
  /** Where the last opened packet's media frame starts. */
  readonly frameOffset: number;
  /** The nonce counter of the last opened packet (for replay checks). */
  readonly lastNonce: number;
  /** Frees the cipher's key material. */
  destroy(): void;
}

/** A raw AEAD key: ciphertext || 16-byte tag, like libsodium's combined mode. */
export interface AeadCipher {
  /** The AEAD algorithm. */
  readonly algorithm: AeadAlgorithm;
  /** Seals `plaintext` (ciphertext then tag). */
  encrypt(nonce: Uint8Array, plaintext: Uint8Array, ad?: Uint8Array): Uint8Array;
  /** Opens `sealed`; null when authentication fails. */
  decrypt(nonce: Uint8Array, sealed: Uint8Array, ad?: Uint8Array): Uint8Array | null;
  /** Frees the key material. */
  destroy(): void;
}

/**
 * Where voice crypto runs (DESIGN.md convention 5): core-wasm (CoreCryptoBackend) or
 * node:crypto (NodeCryptoBackend); the server picks whichever measures faster. One contract
 * test suite (core-wasm/test/cryptoBackend.test.ts) runs against every implementation.
 */
export interface CryptoBackend {
  /** Which implementation (`core-wasm`, `node:crypto`). */
  readonly name: string;
  /** A buffer this backend processes without copying (core memory for core-wasm). */
  allocate(size: number): Uint8Array;
  /** A transport cipher for `mode` with this key. */
  createTransportCipher(mode: TransportMode, key: Uint8Array): TransportCipher;
  /** An AEAD cipher for `algorithm` with this key. */
  createAead(algorithm: AeadAlgorithm, key: Uint8Array): AeadCipher;
}
