import type { CoreExports } from './exports.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The wrapper's side of the core's scratch buffer (assembly/scratch.ts): one region of linear
 * memory, allocated once and grown only when an argument does not fit, that call arguments are
 * written into and results read back from. Views are re-created only when memory grows.
 */
export class ScratchBuffer {
  private buffer: ArrayBuffer | undefined;
  private u8!: Uint8Array;
  private dv!: DataView;
  private ptr = 0;

  constructor(private readonly core: CoreExports) {
    this.reserve(4096);
  }

  /** Makes room for `size` bytes and returns the scratch address. */
  reserve(size: number): number {
    this.ptr = this.core.scratchReserve(size);
    return this.ptr;
  }

  get address(): number {
    return this.ptr;
  }

  /** Byte view of the whole linear memory (valid until memory grows). */
  get bytes(): Uint8Array {
    this.refresh();
    return this.u8;
  }

  get view(): DataView {
    this.refresh();
    return this.dv;
  }

  private refresh(): void {
    const buffer = this.core.memory.buffer;
    if (buffer !== this.buffer) {
      this.buffer = buffer;
      this.u8 = new Uint8Array(buffer);
      this.dv = new DataView(buffer);
    }
  }

  /** Writes `text` as UTF-8 at `at` (room must be reserved: 3 bytes per UTF-16 unit); returns bytes written. */
  writeUtf8(at: number, text: string): number {
    const bytes = this.bytes;
    return encoder.encodeInto(text, bytes.subarray(at, at + text.length * 3)).written;
  }

  readUtf8(at: number, length: number): string {
    return decoder.decode(this.bytes.subarray(at, at + length));
  }

  /** Reads `count` u64 values (LE) at `at` as decimal strings. */
  readU64List(at: number, count: number): string[] {
    const view = this.view;
    const out = new Array<string>(count);
    for (let i = 0; i < count; i++) out[i] = view.getBigUint64(at + i * 8, true).toString();
    return out;
  }
}
