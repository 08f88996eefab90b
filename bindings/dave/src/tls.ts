/**
 * The few TLS-presentation-language pieces that DAVE's binary opcodes need (RFC 9420 2.1):
 * variable-length vector headers and a bounds-checked reader. Everything that is signed or
 * hashed is sliced from the received bytes, never re-encoded, so a peer's encoding choices
 * cannot break a signature or a reference.
 */

export class TlsError extends Error {
  override name = 'TlsError';
}

/** RFC 9420 variable-length integer: 1, 2 or 4 bytes (values below 2^30). */
export function varint(n: number): Uint8Array {
  if (!Number.isInteger(n) || n < 0 || n >= 2 ** 30) throw new RangeError(`varint out of range: ${n}`);
  if (n < 0x40) return Uint8Array.of(n);
  if (n < 0x4000) return Uint8Array.of(0x40 | (n >> 8), n & 0xff);
  return Uint8Array.of(0x80 | (n >>> 24), (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

export function concat(...parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** `opaque data<V>`: the vector header followed by the bytes. */
export function vector(data: Uint8Array): Uint8Array {
  return concat(varint(data.length), data);
}

export function u16(n: number): Uint8Array {
  return Uint8Array.of((n >> 8) & 0xff, n & 0xff);
}

export function u32(n: number): Uint8Array {
  return Uint8Array.of((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

export function u64(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n, false);
  return out;
}

export class TlsReader {
  offset: number;

  constructor(
    readonly bytes: Uint8Array,
    offset = 0,
    readonly end = bytes.length,
  ) {
    this.offset = offset;
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  private need(n: number): void {
    if (n < 0 || this.offset + n > this.end) throw new TlsError('truncated');
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.offset++]!;
  }

  u16(): number {
    this.need(2);
    const v = (this.bytes[this.offset]! << 8) | this.bytes[this.offset + 1]!;
    this.offset += 2;
    return v;
  }

  varint(): number {
    const first = this.u8();
    const prefix = first >> 6;
    if (prefix === 0) return first & 0x3f;
    if (prefix === 1) return ((first & 0x3f) << 8) | this.u8();
    if (prefix === 2) {
      this.need(3);
      const b = this.bytes;
      const v = (first & 0x3f) * 2 ** 24 + ((b[this.offset]! << 16) | (b[this.offset + 1]! << 8) | b[this.offset + 2]!);
      this.offset += 3;
      return v;
    }
    throw new TlsError('invalid varint prefix');
  }

  take(n: number): Uint8Array {
    this.need(n);
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  /** `opaque data<V>` */
  vector(): Uint8Array {
    return this.take(this.varint());
  }

  /** A reader over the body of the next `<V>` vector (this one skips past it). */
  subVector(): TlsReader {
    const length = this.varint();
    this.need(length);
    const sub = new TlsReader(this.bytes, this.offset, this.offset + length);
    this.offset += length;
    return sub;
  }
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

export function toHex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}
