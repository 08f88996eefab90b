/**
 * Noise suppression for Node calls with RNNoise (xiph's recurrent network denoiser), through
 * `@echogarden/rnnoise-wasm`, a WASM build that runs on Node 20. Browsers use their own
 * capture processing instead (the getUserMedia constraints), so this is never loaded there:
 * the specifier is not a literal and the loader checks for Node first, which keeps bundlers
 * from pulling the WASM file into a game's bundle.
 */

interface RnnoiseModule {
  _rnnoise_get_frame_size(): number;
  _rnnoise_create(model: number): number;
  _rnnoise_destroy(state: number): void;
  _rnnoise_process_frame(state: number, out: number, input: number): number;
  _malloc(bytes: number): number;
  _free(pointer: number): void;
  HEAPF32: Float32Array;
}

const SPECIFIER = '@echogarden/rnnoise-wasm';
let modulePromise: Promise<RnnoiseModule> | undefined;

/** Whether RNNoise can run here (Node); browsers answer false. */
export function rnnoiseAvailable(): boolean {
  return typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';
}

function loadModule(): Promise<RnnoiseModule> {
  modulePromise ??= (async () => {
    const specifier = SPECIFIER;
    const imported = (await import(/* @vite-ignore */ specifier)) as { default: () => Promise<RnnoiseModule> };
    return imported.default();
  })();
  return modulePromise;
}

/** One call's RNNoise state; process() denoises a 48 kHz mono frame in place (480-sample steps). */
export class RnnoiseSuppressor {
  private module: RnnoiseModule | undefined;
  private state = 0;
  private input = 0;
  private output = 0;
  private frameSize = 0;
  private destroyed = false;
  /** Resolves once loaded; frames before that pass through unchanged. */
  readonly ready: Promise<void>;

  constructor() {
    this.ready = loadModule().then((module) => {
      if (this.destroyed) return;
      this.module = module;
      this.frameSize = module._rnnoise_get_frame_size();
      this.state = module._rnnoise_create(0);
      this.input = module._malloc(this.frameSize * 4);
      this.output = module._malloc(this.frameSize * 4);
    });
    // Frames pass through unchanged if it never loads; setNoiseSuppression's caller sees the error.
    this.ready.catch(() => undefined);
  }

  get loaded(): boolean {
    return this.module !== undefined;
  }

  /** Denoises `samples` in place; a length that is not a multiple of 480 leaves the tail as is. */
  process(samples: Int16Array): void {
    const module = this.module;
    if (!module || this.destroyed) return;
    const n = this.frameSize;
    for (let at = 0; at + n <= samples.length; at += n) {
      // RNNoise works on float samples in the 16-bit range.
      const heap = module.HEAPF32;
      const base = this.input >> 2;
      for (let i = 0; i < n; i++) heap[base + i] = samples[at + i]!;
      module._rnnoise_process_frame(this.state, this.output, this.input);
      const out = module.HEAPF32;
      const outBase = this.output >> 2;
      for (let i = 0; i < n; i++) {
        const v = Math.round(out[outBase + i]!);
        samples[at + i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
      }
    }
  }

  destroy(): void {
    this.destroyed = true;
    const module = this.module;
    if (!module) return;
    module._rnnoise_destroy(this.state);
    module._free(this.input);
    module._free(this.output);
    this.module = undefined;
  }
}
