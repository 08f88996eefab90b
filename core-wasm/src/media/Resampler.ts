import type { VoiceCore, WasmBuffer } from '../VoiceCore.ts';

/** Options of `Resampler`. */
export interface ResamplerOptions {
  /** Input sample rate in Hz. */
  inputRate?: number;
  /** Output sample rate in Hz. */
  outputRate?: number;
  /** Most input samples per call. Default 20 ms of input. */
  maxInput?: number;
}

/**
 * Mono polyphase resampler (assembly/media/resampler.ts), 44.1 kHz -> 48 kHz by default.
 * Write input into input() (or pass it to process()), get the output as a view into core
 * memory. Streaming: history carries across calls, so 882 samples in give exactly 960 out.
 */
export class Resampler {
  private ctx: number;
  /** Input sample rate in Hz. */
  readonly inputRate: number;
  /** Output sample rate in Hz. */
  readonly outputRate: number;
  /** Most input samples per call. */
  readonly maxInput: number;
  private readonly output: WasmBuffer;
  private readonly outputCapacity: number;
  private readonly bytes: number;

  constructor(
    /** The core it runs in. */
    readonly core: VoiceCore,
    options: ResamplerOptions = {},
  ) {
    this.inputRate = options.inputRate ?? 44100;
    this.outputRate = options.outputRate ?? 48000;
    this.maxInput = options.maxInput ?? Math.ceil(this.inputRate / 50);
    this.ctx = core.exports.resamplerCreate(this.inputRate, this.outputRate, this.maxInput);
    if (!this.ctx) throw new RangeError(`unsupported resampling ratio ${this.inputRate} -> ${this.outputRate}`);
    let a = this.inputRate, b = this.outputRate;
    while (b) [a, b] = [b, a % b];
    this.bytes = 48 + (this.outputRate / a) * 32 * 4 + (31 + this.maxInput) * 4;
    core.account(this.bytes);
    this.outputCapacity = Math.ceil((this.maxInput * this.outputRate) / this.inputRate) + 2;
    this.output = core.alloc(this.outputCapacity * 4);
  }

  /** Where to write up to maxInput samples for processInput(). */
  input(): Float32Array {
    return new Float32Array(this.core.exports.memory.buffer, this.core.exports.resamplerInput(this.ctx), this.maxInput);
  }

  /** Resamples `samples` samples written into input(). */
  processInput(samples: number): Float32Array {
    const n = this.core.exports.resamplerProcess(this.ctx, samples, this.output.address, this.outputCapacity);
    if (n < 0) throw new RangeError(`input longer than maxInput (${this.maxInput})`);
    return this.output.f32(n);
  }

  /** Copies `samples` in and resamples them. */
  process(samples: Float32Array): Float32Array {
    if (samples.length > this.maxInput) throw new RangeError(`input longer than maxInput (${this.maxInput})`);
    this.input().set(samples);
    return this.processInput(samples.length);
  }

  /** Forgets the filter history (a new stream starts). */
  reset(): void {
    this.core.exports.resamplerReset(this.ctx);
  }

  /** Frees its memory in the core. */
  destroy(): void {
    if (this.ctx) {
      this.core.exports.resamplerDestroy(this.ctx);
      this.core.account(-this.bytes);
    }
    this.ctx = 0;
    this.output.free();
  }
}
