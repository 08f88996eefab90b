// Mixes several 48 kHz mono streams into one with a gain per stream, clipping to full scale.
// `inputs` points at `count` u32 addresses of the streams' frames, `gains` at `count` f32.
// WASM SIMD, four samples per step.

/** out[i] = clamp(sum_k gains[k] * in_k[i], -1, 1) for `samples` f32 samples. */
export function mixF32(out: usize, inputs: usize, gains: usize, count: i32, samples: i32): void {
  const n = <usize>samples;
  const vecEnd = n & ~(<usize>3);
  if (count <= 0) {
    memory.fill(out, 0, n << 2);
    return;
  }
  for (let k = 0; k < count; k++) {
    const src = <usize>load<u32>(inputs + (<usize>k << 2));
    const g = load<f32>(gains + (<usize>k << 2));
    const gv = f32x4.splat(g);
    let i: usize = 0;
    if (k == 0) {
      for (; i < vecEnd; i += 4) v128.store(out + (i << 2), f32x4.mul(v128.load(src + (i << 2)), gv));
      for (; i < n; i++) store<f32>(out + (i << 2), load<f32>(src + (i << 2)) * g);
    } else {
      for (; i < vecEnd; i += 4) {
        const o = out + (i << 2);
        v128.store(o, f32x4.add(v128.load(o), f32x4.mul(v128.load(src + (i << 2)), gv)));
      }
      for (; i < n; i++) store<f32>(out + (i << 2), load<f32>(out + (i << 2)) + load<f32>(src + (i << 2)) * g);
    }
  }
  const hi = f32x4.splat(1.0), lo = f32x4.splat(-1.0);
  let i: usize = 0;
  for (; i < vecEnd; i += 4) {
    const o = out + (i << 2);
    v128.store(o, f32x4.max(lo, f32x4.min(hi, v128.load(o))));
  }
  for (; i < n; i++) store<f32>(out + (i << 2), max<f32>(-1.0, min<f32>(1.0, load<f32>(out + (i << 2)))));
}

const ACC_SAMPLES: i32 = 5760; // 120 ms stereo at 48 kHz, the longest Opus frame
const ACC: usize = memory.data(ACC_SAMPLES * 4, 16);

/**
 * The same for 16-bit PCM (what Opus decoders produce), saturating to [-32768, 32767].
 * At most 5760 samples per call; returns the samples mixed.
 */
export function mixI16(out: usize, inputs: usize, gains: usize, count: i32, samples: i32): i32 {
  const n = <usize>min<i32>(samples, ACC_SAMPLES);
  const vecEnd = n & ~(<usize>7);
  memory.fill(ACC, 0, n << 2);
  for (let k = 0; k < count; k++) {
    const src = <usize>load<u32>(inputs + (<usize>k << 2));
    const g = load<f32>(gains + (<usize>k << 2));
    const gv = f32x4.splat(g);
    let i: usize = 0;
    for (; i < vecEnd; i += 8) {
      const s = v128.load(src + (i << 1));
      const a = ACC + (i << 2);
      const lowF = f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_s(s));
      const highF = f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_s(s));
      v128.store(a, f32x4.add(v128.load(a), f32x4.mul(lowF, gv)));
      v128.store(a, f32x4.add(v128.load(a, 16), f32x4.mul(highF, gv)), 16);
    }
    for (; i < n; i++) store<f32>(ACC + (i << 2), load<f32>(ACC + (i << 2)) + <f32>load<i16>(src + (i << 1)) * g);
  }
  let i: usize = 0;
  for (; i < vecEnd; i += 8) {
    const a = ACC + (i << 2);
    // trunc_sat clamps to i32, narrow saturates to i16.
    const l = i32x4.trunc_sat_f32x4_s(f32x4.nearest(v128.load(a)));
    const h = i32x4.trunc_sat_f32x4_s(f32x4.nearest(v128.load(a, 16)));
    v128.store(out + (i << 1), i16x8.narrow_i32x4_s(l, h));
  }
  for (; i < n; i++) {
    const v: f32 = nearest<f32>(load<f32>(ACC + (i << 2)));
    store<i16>(out + (i << 1), <i16>max<f32>(-32768, min<f32>(32767, v)));
  }
  return <i32>n;
}
