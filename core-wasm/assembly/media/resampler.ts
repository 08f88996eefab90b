// Polyphase FIR resampler for mono f32, made for 44.1 kHz capture -> 48 kHz (L/M = 160/147)
// but correct for any rational ratio with L <= 1024. A Kaiser-windowed sinc prototype of
// L * TAPS coefficients, stored per phase in the order the input is read, so each output sample
// is one SIMD dot product of TAPS inputs. The caller writes input straight into the
// resampler's input area (resamplerInput), so nothing is copied in.

const TAPS: i32 = 32;
const L_OFF: usize = 0;
const M_OFF: usize = 4;
const MAX_IN: usize = 8;
const PHASE: usize = 12;
const POS: usize = 16; // offset of the next output's newest input sample, relative to the block start
const COEFFS: usize = 20; // address of the coefficient table
const BUFFER: usize = 24; // address of history (TAPS - 1) + input (maxIn) samples
const HEADER: usize = 32;

function gcd(a: i32, b: i32): i32 {
  while (b) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/** Zeroth-order modified Bessel function of the first kind, for the Kaiser window. */
function besselI0(x: f64): f64 {
  let sum = 1.0, term = 1.0;
  const q = x * x * 0.25;
  for (let k = 1; k < 64; k++) {
    term *= q / (<f64>k * <f64>k);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

/** A resampler from inRate to outRate taking at most maxIn samples per call; 0 when the ratio is unsupported. */
export function resamplerCreate(inRate: i32, outRate: i32, maxIn: i32): usize {
  if (inRate <= 0 || outRate <= 0 || maxIn <= 0) return 0;
  const g = gcd(inRate, outRate);
  const L = outRate / g;
  const M = inRate / g;
  if (L > 1024) return 0;
  const coeffBytes = <usize>(L * TAPS) << 2;
  const bufferBytes = <usize>(TAPS - 1 + maxIn) << 2;
  const ctx = heap.alloc(HEADER + coeffBytes + bufferBytes + 16);
  const coeffs = (ctx + HEADER + 15) & ~(<usize>15);
  const buffer = coeffs + coeffBytes;
  store<i32>(ctx + L_OFF, L);
  store<i32>(ctx + M_OFF, M);
  store<i32>(ctx + MAX_IN, maxIn);
  store<u32>(ctx + COEFFS, <u32>coeffs);
  store<u32>(ctx + BUFFER, <u32>buffer);
  resamplerReset(ctx);

  // Cutoff just under the lower Nyquist frequency, in cycles per sample at the upsampled rate.
  const n = L * TAPS;
  const cutoff = 0.5 * 0.92 / <f64>max<i32>(L, M);
  const beta = 8.6;
  const i0beta = besselI0(beta);
  const centre = <f64>(n - 1) * 0.5;
  for (let p = 0; p < L; p++) {
    for (let j = 0; j < TAPS; j++) {
      // Tap j of phase p multiplies input x[pos - (TAPS - 1) + j], i.e. prototype index p + (TAPS - 1 - j) * L.
      const idx = p + (TAPS - 1 - j) * L;
      const t = <f64>idx - centre;
      const arg = 2.0 * cutoff * t;
      const sinc = t == 0 ? 1.0 : Math.sin(Math.PI * arg) / (Math.PI * arg);
      const r = 2.0 * <f64>idx / <f64>(n - 1) - 1.0;
      const w = besselI0(beta * Math.sqrt(max<f64>(0, 1.0 - r * r))) / i0beta;
      store<f32>(coeffs + (<usize>(p * TAPS + j) << 2), <f32>(2.0 * cutoff * <f64>L * sinc * w));
    }
  }
  return ctx;
}

export function resamplerDestroy(ctx: usize): void {
  if (ctx) heap.free(ctx);
}

/** Clears the history (a new stream). */
export function resamplerReset(ctx: usize): void {
  store<i32>(ctx + PHASE, 0);
  store<i32>(ctx + POS, 0);
  memory.fill(<usize>load<u32>(ctx + BUFFER), 0, <usize>(TAPS - 1) << 2);
}

/** Where the caller writes up to maxIn input samples before resamplerProcess. */
export function resamplerInput(ctx: usize): usize {
  return <usize>load<u32>(ctx + BUFFER) + (<usize>(TAPS - 1) << 2);
}

/** Output samples that `inputSamples` more input will produce now (for sizing `dst`). */
export function resamplerOutputLength(ctx: usize, inputSamples: i32): i32 {
  const L = <i64>load<i32>(ctx + L_OFF);
  const M = <i64>load<i32>(ctx + M_OFF);
  // Outputs j >= 0 while pos + floor((phase + j*M) / L) < inputSamples.
  const pos = <i64>load<i32>(ctx + POS);
  const phase = <i64>load<i32>(ctx + PHASE);
  const span = <i64>inputSamples - pos;
  if (span <= 0) return 0;
  // Largest j with phase + j*M < span*L.
  return <i32>((span * L - phase - 1) / M + 1);
}

/**
 * Resamples the `inputSamples` written at resamplerInput() into dst (capacity dstCap
 * samples); returns the samples written, or -1 when dst is too small or input too long.
 */
export function resamplerProcess(ctx: usize, inputSamples: i32, dst: usize, dstCap: i32): i32 {
  if (inputSamples < 0 || inputSamples > load<i32>(ctx + MAX_IN)) return -1;
  const outCount = resamplerOutputLength(ctx, inputSamples);
  if (outCount > dstCap) return -1;
  const L = load<i32>(ctx + L_OFF);
  const M = load<i32>(ctx + M_OFF);
  const coeffs = <usize>load<u32>(ctx + COEFFS);
  const buffer = <usize>load<u32>(ctx + BUFFER);
  let phase = load<i32>(ctx + PHASE);
  let pos = load<i32>(ctx + POS);
  for (let o = 0; o < outCount; o++) {
    // Newest input sample for this output is buffer[TAPS - 1 + pos]; the window starts at buffer[pos].
    const x = buffer + (<usize>pos << 2);
    const c = coeffs + (<usize>(phase * TAPS) << 2);
    let acc = f32x4.splat(0);
    for (let j: usize = 0; j < <usize>TAPS; j += 4) {
      acc = f32x4.add(acc, f32x4.mul(v128.load(x + (j << 2)), v128.load(c + (j << 2))));
    }
    store<f32>(dst + (<usize>o << 2), f32x4.extract_lane(acc, 0) + f32x4.extract_lane(acc, 1) + f32x4.extract_lane(acc, 2) + f32x4.extract_lane(acc, 3));
    phase += M;
    while (phase >= L) {
      phase -= L;
      pos++;
    }
  }
  // Keep the last TAPS - 1 samples as history for the next block.
  memory.copy(buffer, buffer + (<usize>inputSamples << 2), <usize>(TAPS - 1) << 2);
  store<i32>(ctx + PHASE, phase);
  store<i32>(ctx + POS, pos - inputSamples);
  return outCount;
}
