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
  readonly name: string;
  encode(pcm: Int16Array, output: (packet: Uint8Array) => void): void;
  destroy(): void;
}

/** One Opus decoder per incoming stream; `decodeLost` conceals one missing frame. */
export interface OpusDecoder {
  readonly name: string;
  decode(packet: Uint8Array, output: (pcm: Int16Array) => void): void;
  decodeLost(output: (pcm: Int16Array) => void): void;
  destroy(): void;
}

export interface OpusCodecFactory {
  readonly name: string;
  createEncoder(): Promise<OpusEncoder>;
  createDecoder(): Promise<OpusDecoder>;
}
