/**
 * @social-layer/core-wasm: the typed surface over core.wasm.
 *
 * @module @social-layer/core-wasm
 */
export { LobbyEventKind, AeadAlgorithm, CoreError, JitterPush, JitterPop } from './enums.ts';
export {
  LobbyState,
  canonicalMetadataJson,
  type LobbyEvent,
  type LobbyMemberSnapshot,
  type LobbySnapshot,
} from './LobbyState.ts';
export { instantiateCore, coreModule, CoreAbortError } from './loader.ts';
export type { CoreExports } from './exports.ts';
export { parseU64, toU64, fromU64 } from './snowflake.ts';

// Voice: buffers, crypto, RTP, DAVE, media.
export { VoiceCore, WasmBuffer, type VoiceCoreOptions } from './VoiceCore.ts';
export { CoreAead, hchacha20, aeadKeyLength, aeadNonceLength, TAG_BYTES } from './crypto/CoreAead.ts';
export {
  TransportMode,
  SUPPORTED_TRANSPORT_MODES,
  DEPRECATED_TRANSPORT_MODES,
  TRANSPORT_OVERHEAD,
  isTransportMode,
  type TransportCipher,
  type AeadCipher,
  type CryptoBackend,
} from './crypto/CryptoBackend.ts';
export { CoreCryptoBackend, CoreTransportCipher } from './crypto/CoreCryptoBackend.ts';
export { NodeCryptoBackend } from './crypto/NodeCryptoBackend.ts';
export {
  Rtp,
  seqDelta,
  timestampDelta,
  nextSeq,
  nextTimestamp,
  RTP_OPUS_PAYLOAD_TYPE,
  RTP_OPUS_FRAME_TICKS,
  type RtpHeader,
  type RtpHeaderFields,
} from './voice/rtp.ts';
export {
  DaveFrameEncryptor,
  DaveFrameDecryptor,
  daveGeneration,
  DAVE_MAX_OVERHEAD_OPUS,
  type UnencryptedRange,
  type DaveFrameDecryptorOptions,
} from './dave/DaveFrameCipher.ts';
export { HashRatchet, mlsExpandWithLabel, mlsDeriveTreeSecret, hkdfExpand, type KeyRatchet } from './dave/KeyRatchet.ts';
export { JitterBuffer, type JitterBufferOptions, type JitterStats } from './media/JitterBuffer.ts';
export { Mixer, type MixerOptions } from './media/Mixer.ts';
export { VoiceActivityDetector, type VoiceActivityOptions } from './media/VoiceActivityDetector.ts';
export { Resampler, type ResamplerOptions } from './media/Resampler.ts';
