import type { VoiceActivityDetector } from '@social-layer/core-wasm';
import { AudioModeType } from './enums.ts';

/** What setVADThreshold stores (the spec's VADThresholdSettings). */
export interface VADThresholdSettings {
  /** The level in dBFS (-100..0) above which the microphone opens, when not automatic. */
  vadThreshold: number;
  /** Whether the threshold follows the noise floor by itself. */
  automatic: boolean;
}

/** Frames the VAD keeps the gate open after the level drops (200 ms, the core's default). */
const VAD_HANGOVER_FRAMES = 10;

/**
 * Decides, frame by frame, whether captured audio is sent: self-mute closes it; push-to-talk
 * opens it while the key is held and for `pttReleaseDelayMs` after release; voice activity
 * opens it while the level is over the threshold (core-wasm VAD with hangover). An automatic
 * threshold follows the noise floor: 15 dB over it, within -70..-30 dBFS.
 */
export class CaptureGate {
  mode: AudioModeType = AudioModeType.MODE_VAD;
  selfMute = false;
  private pttActive = false;
  private pttReleasedAt = Number.NEGATIVE_INFINITY;
  pttReleaseDelayMs = 0;
  private threshold: VADThresholdSettings = { vadThreshold: -60, automatic: false };
  private noiseFloor = -70;
  private appliedThreshold = Number.NaN;

  constructor(private readonly vad: VoiceActivityDetector) {
    this.applyThreshold(this.threshold.vadThreshold);
  }

  setPTTActive(active: boolean, nowMs: number): void {
    if (this.pttActive && !active) this.pttReleasedAt = nowMs;
    this.pttActive = active;
  }

  getPTTActive(): boolean {
    return this.pttActive;
  }

  setVADThreshold(automatic: boolean, threshold: number): void {
    const clamped = Math.min(0, Math.max(-100, Number.isFinite(threshold) ? threshold : -60));
    this.threshold = { vadThreshold: clamped, automatic };
    if (!automatic) this.applyThreshold(clamped);
  }

  getVADThreshold(): VADThresholdSettings {
    return { ...this.threshold };
  }

  /** Whether this frame goes out. `frame` is undefined when nothing was captured for this tick. */
  decide(frame: Int16Array | undefined, nowMs: number): boolean {
    if (this.selfMute || !frame) return false;
    if (this.mode === AudioModeType.MODE_PTT) {
      return this.pttActive || nowMs < this.pttReleasedAt + this.pttReleaseDelayMs;
    }
    const active = this.vad.process(frame);
    if (this.threshold.automatic) this.track(this.vad.level);
    return active;
  }

  private track(level: number): void {
    if (!Number.isFinite(level)) return;
    // Falls fast to quiet frames, rises slowly (about 10 s to follow a louder room).
    this.noiseFloor = level < this.noiseFloor ? level : this.noiseFloor + 0.0015 * (level - this.noiseFloor) * 20;
    const target = Math.min(-30, Math.max(-70, this.noiseFloor + 15));
    if (Math.abs(target - this.appliedThreshold) >= 1) this.applyThreshold(target);
  }

  private applyThreshold(db: number): void {
    this.appliedThreshold = db;
    this.vad.configure(db, VAD_HANGOVER_FRAMES);
  }
}
