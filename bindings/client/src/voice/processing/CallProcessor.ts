import { FRAME_MS, FRAME_SAMPLES } from '../codec/OpusCodec.ts';
import type { CaptureProcessor } from '../MediaPipeline.ts';
import type { AecDump } from './AecDump.ts';
import type { NoInputDetector } from './NoInputDetector.ts';
import { RnnoiseSuppressor } from './RnnoiseSuppressor.ts';

/**
 * One call's processing around its media path: the AEC dump's captured side first (what the
 * microphone gave), then RNNoise when noise suppression runs in Node, then the client's
 * no-input detector (shared by every call: it is one microphone).
 */
export class CallProcessor implements CaptureProcessor {
  private rnnoise: RnnoiseSuppressor | undefined;
  dump: AecDump | undefined;

  constructor(private readonly detector: NoInputDetector) {}

  get wantsPlayed(): boolean {
    return this.dump !== undefined;
  }

  /** Node noise suppression on or off (loads RNNoise the first time). */
  setNoiseSuppression(on: boolean): void {
    if (on && !this.rnnoise) this.rnnoise = new RnnoiseSuppressor();
    if (!on && this.rnnoise) {
      this.rnnoise.destroy();
      this.rnnoise = undefined;
    }
  }

  /** Resolves once RNNoise (if on) is loaded. */
  get ready(): Promise<void> {
    return this.rnnoise?.ready ?? Promise.resolve();
  }

  captured(frame: Int16Array): void {
    this.dump?.capture(frame);
    this.rnnoise?.process(frame);
    this.detector.frame(frame, FRAME_MS);
  }

  played(mixed: Int16Array | undefined): void {
    this.dump?.played(mixed, FRAME_SAMPLES);
  }

  destroy(): void {
    this.dump?.finish();
    this.dump = undefined;
    this.setNoiseSuppression(false);
  }
}
