// Voice-activity detector: frame energy in dBFS (RMS relative to full scale, so a full-scale
// square wave is 0 dB and a full-scale sine about -3 dB) against a threshold, with a hangover
// that keeps the gate open for a number of frames after speech drops below it, so word
// endings and short pauses are not cut.

const THRESHOLD: usize = 0; // f32 dB
const HANGOVER: usize = 4; // frames
const REMAINING: usize = 8;
const ACTIVE: usize = 12;
const LEVEL: usize = 16; // f32 dB of the last frame
export const VAD_SIZE: usize = 32;

export function vadCreate(thresholdDb: f32, hangoverFrames: i32): usize {
  const ctx = heap.alloc(VAD_SIZE);
  memory.fill(ctx, 0, VAD_SIZE);
  vadConfigure(ctx, thresholdDb, hangoverFrames);
  store<f32>(ctx + LEVEL, -200);
  return ctx;
}

export function vadConfigure(ctx: usize, thresholdDb: f32, hangoverFrames: i32): void {
  store<f32>(ctx + THRESHOLD, thresholdDb);
  store<i32>(ctx + HANGOVER, max<i32>(0, hangoverFrames));
  // A shorter hangover applies at once.
  store<i32>(ctx + REMAINING, min<i32>(load<i32>(ctx + REMAINING), max<i32>(0, hangoverFrames)));
}

export function vadDestroy(ctx: usize): void {
  if (ctx) heap.free(ctx);
}

function decide(ctx: usize, sumSquares: f64, n: i32): i32 {
  const db = n > 0 ? 10 * Math.log10(sumSquares / <f64>n + 1e-20) : -200.0;
  store<f32>(ctx + LEVEL, <f32>db);
  let active = 0;
  if (<f32>db >= load<f32>(ctx + THRESHOLD)) {
    store<i32>(ctx + REMAINING, load<i32>(ctx + HANGOVER));
    active = 1;
  } else {
    const remaining = load<i32>(ctx + REMAINING);
    if (remaining > 0) {
      store<i32>(ctx + REMAINING, remaining - 1);
      active = 1;
    }
  }
  store<i32>(ctx + ACTIVE, active);
  return active;
}

/** Feeds one frame of f32 samples; returns 1 while voice is active (or in hangover). */
export function vadProcessF32(ctx: usize, src: usize, samples: i32): i32 {
  const n = <usize>max<i32>(samples, 0);
  const vecEnd = n & ~(<usize>3);
  let acc = f32x4.splat(0);
  let i: usize = 0;
  for (; i < vecEnd; i += 4) {
    const v = v128.load(src + (i << 2));
    acc = f32x4.add(acc, f32x4.mul(v, v));
  }
  let sum = <f64>f32x4.extract_lane(acc, 0) + <f64>f32x4.extract_lane(acc, 1) + <f64>f32x4.extract_lane(acc, 2) + <f64>f32x4.extract_lane(acc, 3);
  for (; i < n; i++) {
    const v = <f64>load<f32>(src + (i << 2));
    sum += v * v;
  }
  return decide(ctx, sum, <i32>n);
}

/** The same for 16-bit PCM (full scale 32768). */
export function vadProcessI16(ctx: usize, src: usize, samples: i32): i32 {
  const n = <usize>max<i32>(samples, 0);
  const vecEnd = n & ~(<usize>7);
  let acc = i64x2.splat(0);
  let i: usize = 0;
  for (; i < vecEnd; i += 8) {
    // i16 squares summed pairwise into i32 (dot), then widened to i64 to avoid overflow.
    const v = v128.load(src + (i << 1));
    const d = i32x4.dot_i16x8_s(v, v);
    acc = i64x2.add(acc, i64x2.extend_low_i32x4_u(d));
    acc = i64x2.add(acc, i64x2.extend_high_i32x4_u(d));
  }
  let sum = <f64>(i64x2.extract_lane(acc, 0) + i64x2.extract_lane(acc, 1));
  for (; i < n; i++) {
    const v = <f64>load<i16>(src + (i << 1));
    sum += v * v;
  }
  return decide(ctx, sum / (32768.0 * 32768.0), <i32>n);
}

/** The last frame's level in dBFS. */
export function vadLevel(ctx: usize): f32 {
  return load<f32>(ctx + LEVEL);
}
