import { JitterBuffer, type VoiceCore } from '@social-layer/core-wasm';
import type { OpusDecoder } from './codec/OpusCodec.ts';

/** Ticks without audio after which a participant stops "playing sound" (200 ms). */
export const IDLE_TICKS = 10;

/** Jitter-buffer depth bounds, in 20 ms frames: 2 absorbs clock drift on a quiet network. */
const MIN_DEPTH = 2;
const MAX_DEPTH = 8;

/** One remote participant's incoming audio: jitter buffer, decoder and mixer slot. */
export class ReceiveStream {
  readonly jitter: JitterBuffer;
  decoder: OpusDecoder | undefined;
  /** Linear gain from setParticipantVolume (1 = 100). */
  gain = 1;
  localMute = false;
  /** A decoded frame waits in the mixer input for the next mix. */
  ready = false;
  /** Audio was heard in the last IDLE_TICKS ticks (speakingStatusChanged). */
  active = false;
  idleTicks = 0;
  destroyed = false;
  /** RFC 3550 interarrival jitter estimate, ms. */
  private jitterMs = 0;
  private lastTransit: number | undefined;

  constructor(
    core: VoiceCore,
    readonly userId: string,
    /** Mixer input index, or -1 when every mixer slot is taken (decoded and delivered, not mixed). */
    readonly slot: number,
    /** Where decoded samples go: the mixer input, or a private frame. */
    readonly samples: Int16Array,
  ) {
    this.jitter = new JitterBuffer(core, { capacity: 64, slotBytes: 1500, targetDepth: MIN_DEPTH });
  }

  /**
   * Feeds one packet's arrival into the jitter estimate (RFC 3550 6.4.1: the smoothed difference
   * of transit times) and sizes the buffer from it: enough frames to ride out about four times
   * the measured jitter, so a quiet network gets 40 ms and a jittery one up to 160 ms.
   */
  arrived(rtpTimestamp: number, nowMs: number): void {
    const transit = nowMs - rtpTimestamp / 48;
    if (this.lastTransit !== undefined) {
      const d = Math.abs(transit - this.lastTransit);
      // A talk-spurt gap or a timestamp jump is not jitter: ignore outliers over a second.
      if (d < 1000) this.jitterMs += (d - this.jitterMs) / 16;
    }
    this.lastTransit = transit;
    this.jitter.setTargetDepth(Math.min(MAX_DEPTH, Math.max(MIN_DEPTH, 1 + Math.ceil((4 * this.jitterMs) / 20))));
  }

  get estimatedJitterMs(): number {
    return this.jitterMs;
  }

  destroy(): void {
    this.destroyed = true;
    this.jitter.destroy();
    this.decoder?.destroy();
    this.decoder = undefined;
  }
}
