/** Consecutive silent time before the microphone counts as delivering nothing (a muted headset). */
export const NO_INPUT_AFTER_MS = 1000;
/** setNoAudioInputThreshold's range; the lowest value (the default) turns detection off. */
export const NO_INPUT_THRESHOLD_MIN = -100;
export const NO_INPUT_THRESHOLD_MAX = 100;

/** RMS level of 16-bit samples in dBFS (-Infinity for digital silence). */
export function levelDbfs(samples: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!;
  const rms = Math.sqrt(sum / Math.max(1, samples.length)) / 32768;
  return 20 * Math.log10(rms);
}

/**
 * setNoAudioInputThreshold / setNoAudioInputCallback (social-sdk-api.md 7.3): watches the captured
 * frames and reports `inputDetected = false` once the level has stayed below the threshold for
 * NO_INPUT_AFTER_MS, and `true` when it rises over it again after that. Input counts as present
 * until shown otherwise, so a microphone that works never fires anything.
 */
export class NoInputDetector {
  thresholdDbfs = NO_INPUT_THRESHOLD_MIN;
  private silentMs = 0;
  private reportedSilent = false;

  constructor(private readonly report: (inputDetected: boolean) => void) {}

  get enabled(): boolean {
    return this.thresholdDbfs > NO_INPUT_THRESHOLD_MIN;
  }

  /** One captured frame of `frameMs`. */
  frame(samples: Int16Array, frameMs: number): void {
    if (!this.enabled) return;
    if (levelDbfs(samples) < this.thresholdDbfs) {
      this.silentMs += frameMs;
      if (!this.reportedSilent && this.silentMs >= NO_INPUT_AFTER_MS) {
        this.reportedSilent = true;
        this.report(false);
      }
      return;
    }
    this.silentMs = 0;
    if (this.reportedSilent) {
      this.reportedSilent = false;
      this.report(true);
    }
  }

  reset(): void {
    this.silentMs = 0;
    this.reportedSilent = false;
  }
}
