// Byte layouts that the wrapper writes into scratch for a snapshot (all little-endian):
//   lobby  : u64 id | u32 metaLen | meta bytes | u32 memberCount | member*
//   member : u64 id | u8 connected | u32 flags | u32 metaLen | meta bytes
// A reader walks the buffer with an offset; lengths are checked against the record end so that a
// bad record aborts instead of reading past it.

@final
export class RecordReader {
  constructor(public ptr: usize, public end: usize) {}

  need(n: usize): void {
    if (this.ptr + n > this.end) throw new Error('lobby record truncated');
  }

  u8(): u8 {
    this.need(1);
    const v = load<u8>(this.ptr);
    this.ptr += 1;
    return v;
  }

  u32(): u32 {
    this.need(4);
    const v = load<u32>(this.ptr);
    this.ptr += 4;
    return v;
  }

  u64(): u64 {
    this.need(8);
    const v = load<u64>(this.ptr);
    this.ptr += 8;
    return v;
  }

  /** Returns the address of the next `len` bytes and skips them. */
  bytes(len: u32): usize {
    this.need(<usize>len);
    const p = this.ptr;
    this.ptr += <usize>len;
    return p;
  }
}

export function bytesEqual(stored: StaticArray<u8>, ptr: usize, len: u32): bool {
  return <u32>stored.length == len && memory.compare(changetype<usize>(stored), ptr, <usize>len) == 0;
}

export function copyBytes(ptr: usize, len: u32): StaticArray<u8> {
  const out = new StaticArray<u8>(<i32>len);
  memory.copy(changetype<usize>(out), ptr, <usize>len);
  return out;
}
