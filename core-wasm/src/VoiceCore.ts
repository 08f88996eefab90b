import type { CoreExports } from './exports.ts';
import { instantiateCore, instantiateCoreSync } from './loader.ts';

/** Options of `VoiceCore.create`. */
export interface VoiceCoreOptions {
  /**
   * Bytes of linear memory set aside at creation for buffers and contexts, so that later
   * allocations do not grow memory (growth detaches every view handed out). Default 4 MiB.
   */
  poolBytes?: number;
}

/** Bytes the allocator adds to a block (header and 16-byte alignment), for pool accounting. */
function blockBytes(size: number): number {
  return ((Math.max(size, 16) + 15) & ~15) + 16;
}

/**
 * One instance of core.wasm for the per-packet voice work: crypto contexts, packet and audio
 * buffers, jitter buffers, mixers. Its memory pool is reserved up front, so while allocations
 * stay within `poolBytes` memory does not grow and the views that `alloc` hands out stay valid.
 * Beyond the pool memory grows, which detaches every Uint8Array view taken before:
 * `poolRemaining` tells how much is left (CoreCryptoBackend opens a further instance instead
 * of growing), and WasmBuffer.bytes always returns a live view.
 */
export class VoiceCore {
  private buffer: ArrayBuffer | undefined;
  private u8!: Uint8Array;
  private dv!: DataView;
  private i32!: Int32Array;
  /** Address of the core's result area (RESULT in assembly/result.ts). */
  readonly resultAddress: number;
  /** A scratch buffer for copying arguments in and out (grown on demand). */
  private scratch: WasmBuffer;

  /** Bytes of the pool handed out (an estimate: the allocator's own overhead included). */
  private used = 0;

  private constructor(
    /** The raw exports of core.wasm. */
    readonly exports: CoreExports,
    /** Bytes of linear memory set aside for buffers and contexts at creation. */
    readonly poolBytes: number,
  ) {
    exports.reservePool(poolBytes);
    this.resultAddress = exports.resultAddress();
    this.scratch = this.alloc(4096);
  }

  /** Instantiates core.wasm (asynchronously, as browsers require for larger modules). */
  static async create(options: VoiceCoreOptions = {}): Promise<VoiceCore> {
    return new VoiceCore(await instantiateCore(), options.poolBytes ?? 4 << 20);
  }

  /** The same, synchronously (see instantiateCoreSync). */
  static createSync(options: VoiceCoreOptions = {}): VoiceCore {
    return new VoiceCore(instantiateCoreSync(), options.poolBytes ?? 4 << 20);
  }

  /** Pool bytes left before allocations start growing memory (an estimate). */
  get poolRemaining(): number {
    return this.poolBytes - this.used;
  }

  /** Records `size` bytes allocated (positive) or freed (negative) inside the core. */
  account(size: number): void {
    this.used += Math.sign(size) * blockBytes(Math.abs(size));
  }

  /** Allocates a zeroed buffer in the core's memory, to be reused for every packet or frame. */
  alloc(size: number): WasmBuffer {
    if (!Number.isInteger(size) || size < 0 || size > 0x7fffffff) throw new RangeError(`bad buffer size ${size}`);
    const buffer = new WasmBuffer(this, this.exports.bufferAlloc(size), size);
    this.account(size);
    return buffer;
  }

  /** Bytes of all of linear memory (re-created after growth). */
  get bytes(): Uint8Array {
    this.refresh();
    return this.u8;
  }

  /** A DataView over the core's memory (renewed if memory grew). */
  get view(): DataView {
    this.refresh();
    return this.dv;
  }

  /** RESULT[i] as an i32. */
  result(index: number): number {
    this.refresh();
    return this.i32[(this.resultAddress >>> 2) + index]!;
  }

  /** True when `bytes` lies in this core's memory (so it can be used without copying). */
  owns(bytes: Uint8Array): boolean {
    return bytes.buffer === this.exports.memory.buffer;
  }

  /**
   * Scratch space of at least `size` bytes for copying arguments in (reused; only valid until
   * the next call that uses scratch).
   */
  scratchAddress(size: number): number {
    if (size > this.scratch.capacity) {
      this.scratch.free();
      this.scratch = this.alloc(Math.max(size, this.scratch.capacity * 2));
    }
    return this.scratch.address;
  }

  /** Copies `data` into scratch at `offset` and returns its address. */
  copyIn(data: Uint8Array, address: number): number {
    this.bytes.set(data, address);
    return address;
  }

  private refresh(): void {
    const buffer = this.exports.memory.buffer;
    if (buffer !== this.buffer) {
      this.buffer = buffer;
      this.u8 = new Uint8Array(buffer);
      this.dv = new DataView(buffer);
      this.i32 = new Int32Array(buffer);
    }
  }
}

/** A caller-owned region of the core's memory: allocate once, reuse for every packet. */
export class WasmBuffer {
  private view: Uint8Array | undefined;
  private freed = false;

  constructor(
    /** The core whose memory holds the buffer. */
    readonly core: VoiceCore,
    /** Its address in the core's memory. */
    readonly address: number,
    /** Its size in bytes. */
    readonly capacity: number,
  ) {}

  /** The buffer's bytes (a view into core memory, re-created if memory has grown). */
  get bytes(): Uint8Array {
    if (this.freed) throw new Error('WasmBuffer used after free()');
    const memory = this.core.exports.memory.buffer;
    if (!this.view || this.view.buffer !== memory) this.view = new Uint8Array(memory, this.address, this.capacity);
    return this.view;
  }

  /** The same memory as f32 samples (address is 16-byte aligned). */
  f32(length = this.capacity >>> 2): Float32Array {
    return new Float32Array(this.core.exports.memory.buffer, this.address, length);
  }

  /** The buffer as 16-bit samples (`length` of them, all that fit by default). */
  i16(length = this.capacity >>> 1): Int16Array {
    return new Int16Array(this.core.exports.memory.buffer, this.address, length);
  }

  /** Returns the memory to the core; the buffer must not be used after. */
  free(): void {
    if (this.freed) return;
    this.freed = true;
    this.view = undefined;
    this.core.exports.bufferFree(this.address);
    this.core.account(-this.capacity);
  }
}
