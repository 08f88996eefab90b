// The caller-owned scratch buffer: one growable region of linear memory that the JS wrapper
// writes call arguments into (UTF-8 strings, snapshot records) and reads results back from.
// It is unmanaged (heap.*), so the GC never moves or frees it; the wrapper re-creates its views
// only when memory grows.

let scratchPtr: usize = 0;
let scratchCap: i32 = 0;

/** Makes the scratch buffer at least `size` bytes and returns its address (stable until it grows). */
export function scratchReserve(size: i32): usize {
  if (size > scratchCap) {
    let cap = max<i32>(scratchCap, 256);
    while (cap < size) cap <<= 1;
    scratchPtr = scratchPtr == 0 ? heap.alloc(<usize>cap) : heap.realloc(scratchPtr, <usize>cap);
    scratchCap = cap;
  }
  return scratchPtr;
}

export function scratchAddress(): usize {
  return scratchPtr;
}

export function scratchCapacity(): i32 {
  return scratchCap;
}

/** Copies `len` bytes at `src` into the scratch buffer, growing it if needed. */
export function scratchWrite(src: usize, len: i32): usize {
  const dst = scratchReserve(len);
  memory.copy(dst, src, <usize>len);
  return dst;
}
