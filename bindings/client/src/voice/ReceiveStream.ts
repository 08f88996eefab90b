import { JitterBuffer, type VoiceCore } from '@social-layer/core-wasm';
import type { OpusDecoder } from './codec/OpusCodec.ts';

/** Ticks without audio after which a participant stops "playing sound" (200 ms). */
export const IDLE_TICKS = 10;

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

  constructor(
    core: VoiceCore,
    readonly userId: string,
    /** Mixer input index, or -1 when every mixer slot is taken (decoded and delivered, not mixed). */
    readonly slot: number,
    /** Where decoded samples go: the mixer input, or a private frame. */
    readonly samples: Int16Array,
  ) {
    this.jitter = new JitterBuffer(core, { capacity: 64, slotBytes: 1500, targetDepth: 3 });
  }

  destroy(): void {
    this.destroyed = true;
    this.jitter.destroy();
    this.decoder?.destroy();
    this.decoder = undefined;
  }
}
