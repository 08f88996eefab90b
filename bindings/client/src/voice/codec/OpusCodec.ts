/** Voice audio format everywhere in the pipeline: 48 kHz mono, 20 ms frames. */
export const SAMPLE_RATE = 48_000;
export const FRAME_SAMPLES = 960;
export const FRAME_MS = 20;
/** The Opus silence frame (protocols.md 3.6), sent five times before a pause. */
export const OPUS_SILENCE = Uint8Array.of(0xf8, 0xff, 0xfe);

/**
 * One Opus encoder. `encode` hands each packet to `output`: at once (opusscript) or a little
 * later (WebCodecs); order is kept either way.
 */
export interface OpusEncoder {
  /** Which implementation this is (`webcodecs` or `opusscript`). */
  readonly name: string;
  /** Encodes one 20 ms frame of 48 kHz mono samples; `output` receives the packet. */
  encode(pcm: Int16Array, output: (packet: Uint8Array) => void): void;
  /** Frees the encoder. */
  destroy(): void;
}

/** One Opus decoder per incoming stream; `decodeLost` conceals one missing frame. */
export interface OpusDecoder {
  /** Which implementation this is (`webcodecs` or `opusscript`). */
  readonly name: string;
  /** Decodes one packet; `output` receives its samples. */
  decode(packet: Uint8Array, output: (pcm: Int16Array) => void): void;
  /** Conceals one lost frame; `output` receives the samples that stand in for it. */
  decodeLost(output: (pcm: Int16Array) => void): void;
  /** Frees the decoder. */
  destroy(): void;
}

/** Makes Opus encoders and decoders of one implementation (WebCodecs, or opusscript as the fallback). */
export interface OpusCodecFactory {
  /** Which implementation this is (`webcodecs` or `opusscript`). */
  readonly name: string;
  /** A new encoder. */
  createEncoder(): Promise<OpusEncoder>;
  /** A new decoder. */
  createDecoder(): Promise<OpusDecoder>;
}
