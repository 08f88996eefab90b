import { JitterPop, JitterPush } from '../enums.ts';
import type { VoiceCore } from '../VoiceCore.ts';

/** Options of `JitterBuffer`. */
export interface JitterBufferOptions {
  /** Slots (rounded up to a power of two): how far ahead of playout a packet may be. Default 64. */
  capacity?: number;
  /** Largest frame in bytes. Default 1500. */
  slotBytes?: number;
  /** Frames to hold before playout starts (and restarts after an underrun). Default 3 (60 ms). */
  targetDepth?: number;
}

/** What a `JitterBuffer` has counted since it was made: frames lost, late, duplicated and played, and resets. */
export interface JitterStats {
  /** Frames never received (concealed instead). */
  lost: number;
  /** Frames that arrived after their turn. */
  late: number;
  /** Frames received twice. */
  duplicates: number;
  /** Frames handed out for decoding. */
  played: number;
  /** Times the buffer started over (a jump in sequence numbers). */
  resets: number;
}

/**
 * One incoming stream's jitter buffer in core.wasm (assembly/media/jitter.ts). push() frames as
 * they arrive (any order); pop() once per frame period: a length >= 0 is a frame to decode
 * (read it with frame()), JitterPop.Lost asks for one frame of concealment, JitterPop.Empty
 * means nothing to play yet.
 */
export class JitterBuffer {
  private ctx: number;
  private readonly bytes: number;
  private frameAddress = 0;
  private frameLength = 0;
  /** Sequence of the frame pop() returned (or of the missing one for Lost). */
  sequence = 0;
  /** RTP timestamp of the frame pop() returned. */
  timestamp = 0;

  constructor(
    /** The core it runs in. */
    readonly core: VoiceCore,
    options: JitterBufferOptions = {},
  ) {
    const capacity = options.capacity ?? 64;
    const slotBytes = options.slotBytes ?? 1500;
    this.ctx = core.exports.jitterCreate(capacity, slotBytes, options.targetDepth ?? 3);
    let slots = 4;
    while (slots < capacity) slots *= 2;
    this.bytes = 64 + slots * (16 + slotBytes);
    core.account(this.bytes);
  }

  /** Stores an arriving frame by its RTP sequence number and timestamp; says what became of it. */
  push(sequence: number, timestamp: number, payload: Uint8Array, length = payload.length): JitterPush {
    const { core } = this;
    let at: number;
    if (core.owns(payload)) at = payload.byteOffset;
    else {
      at = core.scratchAddress(length);
      core.bytes.set(payload.subarray(0, length), at);
    }
    return core.exports.jitterPush(this.ctx, sequence & 0xffff, timestamp >>> 0, at, length) as JitterPush;
  }

  /** Takes the next frame in order, once per frame period: its length (read it with `frame()`), `JitterPop.Lost` or `JitterPop.Empty`. */
  pop(): number {
    const { core } = this;
    const result = core.exports.jitterPop(this.ctx);
    if (result === JitterPop.Empty) return result;
    this.sequence = core.result(0) & 0xffff;
    if (result >= 0) {
      this.timestamp = core.result(1) >>> 0;
      this.frameAddress = core.result(2) >>> 0;
      this.frameLength = result;
    } else {
      this.frameLength = 0;
    }
    return result;
  }

  /** The frame pop() last returned, as a view into core memory (valid until the next push). */
  frame(): Uint8Array {
    return new Uint8Array(this.core.exports.memory.buffer, this.frameAddress, this.frameLength);
  }

  /**
   * Frames to buffer before playout (re)starts; takes effect at the next start (a new talk spurt
   * or after an underrun), so audio already playing never jumps.
   */
  setTargetDepth(frames: number): void {
    this.core.exports.jitterSetTarget(this.ctx, Math.max(1, Math.round(frames)));
  }

  /** Frames buffered now. */
  get depth(): number {
    return this.core.exports.jitterDepth(this.ctx);
  }

  /** What the buffer has counted so far. */
  stats(): JitterStats {
    const s = (i: number) => this.core.exports.jitterStat(this.ctx, i) >>> 0;
    return { lost: s(0), late: s(1), duplicates: s(2), played: s(3), resets: s(4) };
  }

  /** Forget everything buffered and the playout position (new talk spurt or stream). */
  reset(): void {
    this.core.exports.jitterReset(this.ctx);
  }

  /** Frees its memory in the core. */
  destroy(): void {
    if (this.ctx) {
      this.core.exports.jitterDestroy(this.ctx);
      this.core.account(-this.bytes);
    }
    this.ctx = 0;
  }
}
