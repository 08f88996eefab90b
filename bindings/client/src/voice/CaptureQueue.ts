import { FRAME_SAMPLES } from './codec/OpusCodec.ts';

/**
 * Captured 48 kHz mono PCM waiting to be sent, cut into 20 ms frames. The send clock takes one
 * frame per tick, so audio pushed faster than real time (a bot with a file) is paced out at
 * real time; past `maxFrames` the oldest audio is dropped (a microphone must not lag behind).
 */
export class CaptureQueue {
  private readonly frames: Int16Array[] = [];
  private partial: Int16Array = new Int16Array(FRAME_SAMPLES);
  private partialLength = 0;
  private readonly spare: Int16Array[] = [];

  constructor(public maxFrames: number) {}

  get length(): number {
    return this.frames.length;
  }

  push(samples: Int16Array | Float32Array): void {
    const float = samples instanceof Float32Array;
    let i = 0;
    while (i < samples.length) {
      const n = Math.min(FRAME_SAMPLES - this.partialLength, samples.length - i);
      if (float) {
        for (let k = 0; k < n; k++) {
          const v = samples[i + k]!;
          this.partial[this.partialLength + k] = v >= 1 ? 32767 : v <= -1 ? -32768 : Math.round(v * 32767);
        }
      } else this.partial.set((samples as Int16Array).subarray(i, i + n), this.partialLength);
      this.partialLength += n;
      i += n;
      if (this.partialLength === FRAME_SAMPLES) {
        this.frames.push(this.partial);
        this.partial = this.spare.pop() ?? new Int16Array(FRAME_SAMPLES);
        this.partialLength = 0;
        while (this.frames.length > this.maxFrames) this.recycle(this.frames.shift()!);
      }
    }
  }

  /** The next whole frame, or undefined. Hand it back with recycle() when done. */
  take(): Int16Array | undefined {
    return this.frames.shift();
  }

  recycle(frame: Int16Array): void {
    if (this.spare.length < 8) this.spare.push(frame);
  }

  clear(): void {
    for (const f of this.frames.splice(0)) this.recycle(f);
    this.partialLength = 0;
  }
}
