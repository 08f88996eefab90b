import type { VoiceCore, WasmBuffer } from '../VoiceCore.ts';

/** Options of `Mixer`. */
export interface MixerOptions {
  /** Most streams mixed at once. Default 32. */
  maxStreams?: number;
  /** Samples per frame and stream (20 ms mono at 48 kHz = 960). Default 960. */
  frameSamples?: number;
  /** 'f32' (AudioWorklet, [-1, 1]) or 'i16' (Opus decoders, PCM). Default 'f32'. */
  format?: 'f32' | 'i16';
}

/**
 * Mixes up to maxStreams 48 kHz mono frames with a gain per stream, clipping to full scale
 * (assembly/media/mixer.ts, SIMD). Each stream has an input buffer in core memory that the
 * decoder writes into directly (input(k)), so mixing copies nothing in.
 */
export class Mixer {
  /** How many streams it can mix at once. */
  readonly maxStreams: number;
  /** Samples per frame. */
  readonly frameSamples: number;
  /** The sample format of inputs and output. */
  readonly format: 'f32' | 'i16';
  private readonly inputs: WasmBuffer[] = [];
  private readonly output: WasmBuffer;
  private readonly pointers: WasmBuffer;
  private readonly gains: WasmBuffer;
  private readonly gainValues: number[];

  constructor(
    /** The core it runs in. */
    readonly core: VoiceCore,
    options: MixerOptions = {},
  ) {
    this.maxStreams = options.maxStreams ?? 32;
    this.frameSamples = options.frameSamples ?? 960;
    this.format = options.format ?? 'f32';
    if (this.format === 'i16' && this.frameSamples > 5760) throw new RangeError('i16 frames are at most 5760 samples');
    const bytesPerSample = this.format === 'f32' ? 4 : 2;
    for (let k = 0; k < this.maxStreams; k++) this.inputs.push(core.alloc(this.frameSamples * bytesPerSample));
    this.output = core.alloc(this.frameSamples * bytesPerSample);
    this.pointers = core.alloc(this.maxStreams * 4);
    this.gains = core.alloc(this.maxStreams * 4);
    this.gainValues = new Array<number>(this.maxStreams).fill(1);
  }

  /** Stream k's input frame (write decoded samples here). */
  input(k: number): Float32Array | Int16Array {
    const buffer = this.inputs[k];
    if (!buffer) throw new RangeError(`stream ${k} out of range`);
    return this.format === 'f32' ? buffer.f32(this.frameSamples) : buffer.i16(this.frameSamples);
  }

  /** Linear gain of stream k (1 = unchanged; the Client API's 0-200 volume maps to 0-2). */
  setGain(k: number, gain: number): void {
    if (k < 0 || k >= this.maxStreams) throw new RangeError(`stream ${k} out of range`);
    this.gainValues[k] = gain;
  }

  /**
   * Mixes the given streams (default: the first `count`) into the output frame and returns
   * it (a view into core memory, valid until the next mix).
   */
  mix(streams: number | readonly number[]): Float32Array | Int16Array {
    const list = typeof streams === 'number' ? undefined : streams;
    const count = list ? list.length : streams as number;
    if (count > this.maxStreams) throw new RangeError('too many streams');
    const view = this.core.view;
    for (let i = 0; i < count; i++) {
      const k = list ? list[i]! : i;
      const buffer = this.inputs[k];
      if (!buffer) throw new RangeError(`stream ${k} out of range`);
      view.setUint32(this.pointers.address + i * 4, buffer.address, true);
      view.setFloat32(this.gains.address + i * 4, this.gainValues[k]!, true);
    }
    const e = this.core.exports;
    if (this.format === 'f32') {
      e.mixF32(this.output.address, this.pointers.address, this.gains.address, count, this.frameSamples);
      return this.output.f32(this.frameSamples);
    }
    e.mixI16(this.output.address, this.pointers.address, this.gains.address, count, this.frameSamples);
    return this.output.i16(this.frameSamples);
  }

  /** Frees its memory in the core. */
  destroy(): void {
    for (const b of this.inputs) b.free();
    this.output.free();
    this.pointers.free();
    this.gains.free();
  }
}
