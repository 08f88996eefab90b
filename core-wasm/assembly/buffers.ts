// Caller-owned buffers in linear memory (packets, audio frames, keys). They are unmanaged:
// allocated once by the wrapper and reused for every packet, never touched by the GC.

/** Allocates `size` bytes, 16-byte aligned, zeroed. */
export function bufferAlloc(size: i32): usize {
  const ptr = heap.alloc(<usize>max<i32>(size, 16));
  memory.fill(ptr, 0, <usize>size);
  return ptr;
}

export function bufferFree(ptr: usize): void {
  if (ptr != 0) heap.free(ptr);
}

/**
 * Grows memory once so that later buffer allocations up to about `bytes` in total come from
 * the pool instead of growing memory (which would detach the wrapper's views of it).
 */
export function reservePool(bytes: i32): void {
  heap.free(heap.alloc(<usize>bytes));
}
