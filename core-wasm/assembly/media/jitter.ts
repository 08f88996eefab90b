// Jitter buffer for one incoming voice stream: reorders by RTP sequence (unwrapped across the
// 16-bit wrap), drops duplicates and packets whose turn has passed, and tells the playout
// clock when a frame is missing so the decoder can conceal it. Slots live in one unmanaged
// block allocated at creation; pop() hands out the slot's address, so frames are copied once
// (in) and read in place (out).
import { JitterPop, JitterPush } from '../generated/enums';
import { RESULT } from '../result';

const CAPACITY: usize = 0;
const SLOT_BYTES: usize = 4;
const TARGET: usize = 8;
const STARTED: usize = 12;
const NEXT: usize = 16; // extended sequence to play next (u32, compared with wrap-around)
const COUNT: usize = 20;
const PRIMED: usize = 24; // NEXT holds a real position
const LOST: usize = 28;
const LATE: usize = 32;
const DUPLICATES: usize = 36;
const PLAYED: usize = 40;
const RESETS: usize = 44;
const HEADER: usize = 64;
const META: usize = 16; // per slot: u32 extended seq, u32 timestamp, i32 length (-1 empty)

// @ts-ignore: decorator
@inline function meta(ctx: usize, slot: u32): usize {
  return ctx + HEADER + <usize>slot * META;
}

// @ts-ignore: decorator
@inline function data(ctx: usize, slot: u32): usize {
  const capacity = load<u32>(ctx + CAPACITY);
  return ctx + HEADER + <usize>capacity * META + <usize>slot * <usize>load<u32>(ctx + SLOT_BYTES);
}

/**
 * A buffer of `capacity` slots (rounded up to a power of two, at least 4) of `slotBytes`
 * each, that starts playing once `target` frames are buffered.
 */
export function jitterCreate(capacity: i32, slotBytes: i32, target: i32): usize {
  let cap: u32 = 4;
  while (cap < <u32>capacity) cap <<= 1;
  const size = HEADER + <usize>cap * META + <usize>cap * <usize>slotBytes;
  const ctx = heap.alloc(size);
  memory.fill(ctx, 0, HEADER);
  store<u32>(ctx + CAPACITY, cap);
  store<u32>(ctx + SLOT_BYTES, <u32>slotBytes);
  store<u32>(ctx + TARGET, <u32>max<i32>(1, min<i32>(target, <i32>cap)));
  clearSlots(ctx);
  return ctx;
}

/**
 * Sets how many frames must be buffered before playout (re)starts. It applies at the next start:
 * a talk spurt already playing keeps its delay, so the listener hears no jump.
 */
export function jitterSetTarget(ctx: usize, target: i32): void {
  store<u32>(ctx + TARGET, <u32>max<i32>(1, min<i32>(target, <i32>load<u32>(ctx + CAPACITY))));
}

export function jitterDestroy(ctx: usize): void {
  if (ctx) heap.free(ctx);
}

function clearSlots(ctx: usize): void {
  const cap = load<u32>(ctx + CAPACITY);
  for (let i: u32 = 0; i < cap; i++) store<i32>(meta(ctx, i), -1, 8);
  store<u32>(ctx + COUNT, 0);
}

/** Forgets every buffered frame and the playout position (a new talk spurt or stream). */
export function jitterReset(ctx: usize): void {
  clearSlots(ctx);
  store<u32>(ctx + STARTED, 0);
  store<u32>(ctx + PRIMED, 0);
}

export function jitterPush(ctx: usize, seq: i32, timestamp: u32, src: usize, len: i32): i32 {
  if (len < 0 || <u32>len > load<u32>(ctx + SLOT_BYTES)) return JitterPush.TooLarge;
  const cap = load<u32>(ctx + CAPACITY);
  let next = load<u32>(ctx + NEXT);
  // Unwrap the 16-bit sequence to the extended sequence nearest the playout position.
  const ext = next + <u32>(<i32>(<i16>(<u16>seq - <u16>next)));
  let status = JitterPush.Stored;
  if (!load<u32>(ctx + PRIMED)) {
    store<u32>(ctx + NEXT, ext);
    store<u32>(ctx + PRIMED, 1);
    next = ext;
  } else {
    const ahead = <i32>(ext - next);
    if (ahead < 0) {
      // Older than the playout position. Accepted only while filling (playout not begun and
      // something buffered) and if the window still spans it; otherwise its turn has passed.
      const filling = !load<u32>(ctx + STARTED) && load<u32>(ctx + COUNT) > 0;
      if (!filling || <u32>(-ahead) + <u32>highestAhead(ctx, next) >= cap) {
        store<u32>(ctx + LATE, load<u32>(ctx + LATE) + 1);
        return JitterPush.Late;
      }
      store<u32>(ctx + NEXT, ext);
      next = ext;
    } else if (<u32>ahead >= cap) {
      // Far ahead (a long gap or a new stream): restart from this packet.
      clearSlots(ctx);
      store<u32>(ctx + STARTED, 0);
      store<u32>(ctx + NEXT, ext);
      store<u32>(ctx + RESETS, load<u32>(ctx + RESETS) + 1);
      next = ext;
      status = JitterPush.Reset;
    } else if (!load<u32>(ctx + STARTED) && load<u32>(ctx + COUNT) == 0) {
      // Rebuffering after an underrun: resume from the first packet that arrives.
      store<u32>(ctx + NEXT, ext);
      next = ext;
    }
  }
  const slot = ext & (cap - 1);
  const m = meta(ctx, slot);
  if (load<i32>(m, 8) >= 0) {
    if (load<u32>(m, 0) == ext) {
      store<u32>(ctx + DUPLICATES, load<u32>(ctx + DUPLICATES) + 1);
      return JitterPush.Duplicate;
    }
  } else {
    store<u32>(ctx + COUNT, load<u32>(ctx + COUNT) + 1);
  }
  store<u32>(m, ext, 0);
  store<u32>(m, timestamp, 4);
  store<i32>(m, len, 8);
  memory.copy(data(ctx, slot), src, <usize>len);
  return status;
}

/** How far past `next` the newest buffered frame is (0 when empty). */
function highestAhead(ctx: usize, next: u32): i32 {
  const cap = load<u32>(ctx + CAPACITY);
  let best = 0;
  for (let i: u32 = 0; i < cap; i++) {
    const m = meta(ctx, i);
    if (load<i32>(m, 8) >= 0) best = max<i32>(best, <i32>(load<u32>(m, 0) - next));
  }
  return best;
}

/**
 * The frame to play now: its length (>= 0) with RESULT [0] sequence, [1] timestamp, [2] the
 * frame's address (valid until the next push); JitterPop.Lost when it is missing (RESULT[0]
 * = the missing sequence; conceal one frame); JitterPop.Empty while filling or empty.
 */
export function jitterPop(ctx: usize): i32 {
  const count = load<u32>(ctx + COUNT);
  if (!load<u32>(ctx + STARTED)) {
    if (count < load<u32>(ctx + TARGET)) return JitterPop.Empty;
    store<u32>(ctx + STARTED, 1);
  }
  if (count == 0) {
    // Underrun: wait for the target depth again.
    store<u32>(ctx + STARTED, 0);
    return JitterPop.Empty;
  }
  const cap = load<u32>(ctx + CAPACITY);
  const next = load<u32>(ctx + NEXT);
  const slot = next & (cap - 1);
  const m = meta(ctx, slot);
  store<u32>(ctx + NEXT, next + 1);
  store<i32>(RESULT, <i32>(next & 0xffff), 0);
  if (load<i32>(m, 8) >= 0 && load<u32>(m, 0) == next) {
    const len = load<i32>(m, 8);
    store<i32>(m, -1, 8);
    store<u32>(ctx + COUNT, count - 1);
    store<u32>(ctx + PLAYED, load<u32>(ctx + PLAYED) + 1);
    store<u32>(RESULT, load<u32>(m, 4), 4);
    store<u32>(RESULT, <u32>data(ctx, slot), 8);
    return len;
  }
  store<u32>(ctx + LOST, load<u32>(ctx + LOST) + 1);
  return JitterPop.Lost;
}

/** Frames buffered now. */
export function jitterDepth(ctx: usize): i32 {
  return <i32>load<u32>(ctx + COUNT);
}

/** Counters: 0 lost, 1 late, 2 duplicates, 3 played, 4 resets. */
export function jitterStat(ctx: usize, which: i32): u32 {
  if (which < 0 || which > 4) return 0;
  return load<u32>(ctx + LOST + (<usize>which << 2));
}
