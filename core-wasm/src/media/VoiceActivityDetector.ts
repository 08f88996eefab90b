import type { VoiceCore, WasmBuffer } from '../VoiceCore.ts';

/** Options of `VoiceActivityDetector`. */
export interface VoiceActivityOptions {
  /** Frame level (RMS dBFS) at or above which a frame is voice. Default -45. */
  thresholdDb?: number;
  /** Frames the gate stays open after the level drops below the threshold. Default 10 (200 ms). */
  hangoverFrames?: number;
  /** Largest frame in samples, for the input buffer. Default 960. */
  maxFrameSamples?: number;
}

/**
 * Energy VAD with threshold and hangover (assembly/media/vad.ts). process() takes any
 * Float32Array or Int16Array frame (copied into core memory); processInput() reads the
 * frame written into input() in place.
 */
export class VoiceActivityDetector {
  private ctx: number;
  private readonly buffer: WasmBuffer;

  constructor(
    /** The core it runs in. */
    readonly core: VoiceCore,
    options: VoiceActivityOptions = {},
  ) {
    this.ctx = core.exports.vadCreate(options.thresholdDb ?? -45, options.hangoverFrames ?? 10);
    this.buffer = core.alloc((options.maxFrameSamples ?? 960) * 4);
  }

  /** Sets the threshold (dBFS) and how many frames the gate stays open after the level drops. */
  configure(thresholdDb: number, hangoverFrames: number): void {
    this.core.exports.vadConfigure(this.ctx, thresholdDb, hangoverFrames);
  }

  /** True while voice is active (including hangover). */
  process(frame: Float32Array | Int16Array): boolean {
    const bytes = frame.byteLength;
    if (bytes > this.buffer.capacity) throw new RangeError('frame longer than maxFrameSamples');
    this.buffer.bytes.set(new Uint8Array(frame.buffer, frame.byteOffset, bytes));
    return this.processInput(frame.length, frame instanceof Int16Array ? 'i16' : 'f32');
  }

  /** The input buffer (f32 view; use inputI16() for PCM). */
  input(): Float32Array {
    return this.buffer.f32();
  }

  /** The input area as 16-bit samples: write a frame there, then `processInput(n, 'i16')`. */
  inputI16(): Int16Array {
    return this.buffer.i16();
  }

  /** Runs the detector on `samples` samples already in the input area; true while voice is detected. */
  processInput(samples: number, format: 'f32' | 'i16' = 'f32'): boolean {
    const e = this.core.exports;
    const fn = format === 'f32' ? e.vadProcessF32 : e.vadProcessI16;
    return fn(this.ctx, this.buffer.address, samples) === 1;
  }

  /** The last frame's level in dBFS. */
  get level(): number {
    return this.core.exports.vadLevel(this.ctx);
  }

  /** Frees its memory in the core. */
  destroy(): void {
    if (this.ctx) this.core.exports.vadDestroy(this.ctx);
    this.ctx = 0;
    this.buffer.free();
  }
}
