// Jitter buffer, mixer, VAD and resampler with generated signals.
import { beforeAll, describe, expect, it } from 'vitest';
import { JitterBuffer, JitterPop, JitterPush, Mixer, Resampler, VoiceActivityDetector, VoiceCore } from '../src/index.ts';

let core: VoiceCore;
beforeAll(async () => {
  core = await VoiceCore.create({ poolBytes: 2 << 20 });
});

const frame = (seq: number) => Uint8Array.of(seq & 0xff, (seq >> 8) & 0xff, 0xab);

/** Pops until Empty; returns sequences played and 'L<seq>' for losses. */
function drain(jb: JitterBuffer, max = 100): (number | string)[] {
  const out: (number | string)[] = [];
  for (let i = 0; i < max; i++) {
    const r = jb.pop();
    if (r === JitterPop.Empty) break;
    if (r === JitterPop.Lost) out.push(`L${jb.sequence}`);
    else {
      const f = jb.frame();
      expect(f[0]! | (f[1]! << 8)).toBe(jb.sequence);
      out.push(jb.sequence);
    }
  }
  return out;
}

describe('JitterBuffer', () => {
  it('holds frames until the target depth, then plays in order', () => {
    const jb = new JitterBuffer(core, { targetDepth: 3 });
    expect(jb.push(100, 9600, frame(100))).toBe(JitterPush.Stored);
    expect(jb.pop()).toBe(JitterPop.Empty);
    jb.push(101, 10560, frame(101));
    expect(jb.pop()).toBe(JitterPop.Empty);
    jb.push(102, 11520, frame(102));
    expect(jb.pop()).toBe(3);
    expect(jb.sequence).toBe(100);
    expect(jb.timestamp).toBe(9600);
    expect(drain(jb)).toEqual([101, 102]);
    jb.destroy();
  });

  it('reorders', () => {
    const jb = new JitterBuffer(core, { targetDepth: 4 });
    for (const s of [12, 10, 13, 11]) jb.push(s, s * 960, frame(s));
    expect(drain(jb)).toEqual([10, 11, 12, 13]);
    jb.destroy();
  });

  it('drops duplicates', () => {
    const jb = new JitterBuffer(core, { targetDepth: 2 });
    expect(jb.push(1, 0, frame(1))).toBe(JitterPush.Stored);
    expect(jb.push(1, 0, frame(1))).toBe(JitterPush.Duplicate);
    expect(jb.push(2, 960, frame(2))).toBe(JitterPush.Stored);
    expect(drain(jb)).toEqual([1, 2]);
    expect(jb.stats().duplicates).toBe(1);
    jb.destroy();
  });

  it('drops packets whose turn has passed and reports gaps as losses', () => {
    const jb = new JitterBuffer(core, { targetDepth: 2 });
    jb.push(1, 0, frame(1));
    jb.push(3, 1920, frame(3));
    jb.push(4, 2880, frame(4));
    expect(jb.pop()).toBe(3); // 1
    expect(jb.pop()).toBe(JitterPop.Lost); // 2 missing: conceal
    expect(jb.sequence).toBe(2);
    expect(jb.push(2, 960, frame(2))).toBe(JitterPush.Late); // too late now
    expect(jb.push(1, 0, frame(1))).toBe(JitterPush.Late);
    expect(drain(jb)).toEqual([3, 4]);
    expect(jb.stats()).toMatchObject({ lost: 1, late: 2, played: 3 });
    jb.destroy();
  });

  it('accepts an earlier packet that arrives while still filling', () => {
    const jb = new JitterBuffer(core, { targetDepth: 3 });
    jb.push(51, 0, frame(51));
    jb.push(50, 0, frame(50));
    jb.push(52, 0, frame(52));
    expect(drain(jb)).toEqual([50, 51, 52]);
    jb.destroy();
  });

  it('works across the 16-bit sequence wrap, with reordering and loss', () => {
    const jb = new JitterBuffer(core, { targetDepth: 3 });
    for (const s of [65533, 65535, 65534, 1, 0, 3, 2, 5]) jb.push(s, 0, frame(s));
    expect(drain(jb)).toEqual([65533, 65534, 65535, 0, 1, 2, 3, 'L4', 5]);
    // Late packet from before the wrap is still recognised as late.
    expect(jb.push(65535, 0, frame(65535))).toBe(JitterPush.Late);
    jb.destroy();
  });

  it('runs a long stream through many wraps with reordering', () => {
    const jb = new JitterBuffer(core, { targetDepth: 4, capacity: 32 });
    let played = 0;
    let mismatches = 0;
    let expected = 60000;
    const start = 60000;
    const total = 200000;
    const order: number[] = [];
    for (let i = 0; i < total; i += 4) order.push(i + 1, i, i + 3, i + 2);
    for (let k = 0; k < order.length; k++) {
      const s = (start + order[k]!) & 0xffff;
      jb.push(s, 0, frame(s));
      if (k >= 4) {
        // Plain comparisons in the hot loop (expect() per frame would dominate the run time).
        if (jb.pop() !== 3 || jb.sequence !== (expected & 0xffff)) mismatches++;
        expected++;
        played++;
      }
    }
    expect(mismatches).toBe(0);
    expect(played).toBe(total - 4);
    expect(jb.stats()).toMatchObject({ lost: 0, late: 0, duplicates: 0 });
    jb.destroy();
  });

  it('rebuffers after an underrun and restarts after a long gap', () => {
    const jb = new JitterBuffer(core, { targetDepth: 2, capacity: 16 });
    jb.push(1, 0, frame(1));
    jb.push(2, 0, frame(2));
    expect(drain(jb)).toEqual([1, 2]);
    expect(jb.pop()).toBe(JitterPop.Empty);
    jb.push(3, 0, frame(3));
    expect(jb.pop()).toBe(JitterPop.Empty); // filling again
    jb.push(4, 0, frame(4));
    expect(drain(jb)).toEqual([3, 4]);
    // Far ahead of the playout point: restart from there.
    expect(jb.push(1000, 0, frame(1000))).toBe(JitterPush.Reset);
    jb.push(1001, 0, frame(1001));
    expect(drain(jb)).toEqual([1000, 1001]);
    expect(jb.stats().resets).toBe(1);
    jb.destroy();
  });

  it('refuses frames larger than a slot', () => {
    const jb = new JitterBuffer(core, { slotBytes: 100 });
    expect(jb.push(1, 0, new Uint8Array(101))).toBe(JitterPush.TooLarge);
    expect(jb.push(1, 0, new Uint8Array(100))).toBe(JitterPush.Stored);
    jb.destroy();
  });
});

const sine = (n: number, freq: number, rate: number, amp: number, phase = 0) =>
  Float32Array.from({ length: n }, (_, i) => amp * Math.sin((2 * Math.PI * freq * i) / rate + phase));

describe('Mixer', () => {
  it('sums streams with per-stream gain (f32)', () => {
    const mixer = new Mixer(core, { maxStreams: 4, frameSamples: 960 });
    const a = sine(960, 440, 48000, 0.25);
    const b = sine(960, 1000, 48000, 0.3);
    const c = sine(960, 3000, 48000, 0.5);
    mixer.input(0).set(a);
    mixer.input(1).set(b);
    mixer.input(2).set(c);
    mixer.setGain(1, 0.5);
    mixer.setGain(2, 0);
    const out = mixer.mix(3);
    for (let i = 0; i < 960; i++) expect(out[i]).toBeCloseTo(a[i]! + 0.5 * b[i]!, 6);
    // A chosen subset, in any order.
    const only = mixer.mix([2, 0]);
    for (let i = 0; i < 960; i++) expect(only[i]).toBeCloseTo(a[i]!, 6);
    expect(Array.from(mixer.mix(0)).every((v) => v === 0)).toBe(true);
    mixer.destroy();
  });

  it('clips to [-1, 1]', () => {
    const mixer = new Mixer(core, { maxStreams: 2, frameSamples: 963 });
    const loud = sine(963, 100, 48000, 0.9);
    mixer.input(0).set(loud);
    mixer.input(1).set(loud);
    mixer.setGain(1, 2);
    const out = mixer.mix(2);
    let clipped = 0;
    for (let i = 0; i < 963; i++) {
      const want = Math.max(-1, Math.min(1, 3 * loud[i]!));
      expect(out[i]).toBeCloseTo(want, 5);
      if (Math.abs(want) === 1) clipped++;
    }
    expect(clipped).toBeGreaterThan(100);
    mixer.destroy();
  });

  it('mixes 16-bit PCM with saturation', () => {
    const mixer = new Mixer(core, { maxStreams: 2, frameSamples: 965, format: 'i16' });
    const a = mixer.input(0) as Int16Array;
    const b = mixer.input(1) as Int16Array;
    for (let i = 0; i < 965; i++) {
      a[i] = Math.round(20000 * Math.sin(i / 10));
      b[i] = Math.round(15000 * Math.sin(i / 7));
    }
    mixer.setGain(0, 1);
    mixer.setGain(1, 0.5);
    const out = mixer.mix(2) as Int16Array;
    for (let i = 0; i < 965; i++) {
      const want = Math.max(-32768, Math.min(32767, Math.round(a[i]! + 0.5 * b[i]!)));
      expect(Math.abs(out[i]! - want)).toBeLessThanOrEqual(1);
    }
    a.fill(30000);
    b.fill(30000);
    mixer.setGain(1, 1);
    expect(Array.from(mixer.mix(2) as Int16Array).every((v) => v === 32767)).toBe(true);
    a.fill(-30000);
    b.fill(-30000);
    expect(Array.from(mixer.mix(2) as Int16Array).every((v) => v === -32768)).toBe(true);
    mixer.destroy();
  });
});

describe('VoiceActivityDetector', () => {
  it('measures level in dBFS', () => {
    const vad = new VoiceActivityDetector(core);
    vad.process(sine(960, 1000, 48000, 1));
    expect(vad.level).toBeCloseTo(-3.01, 1);
    vad.process(sine(960, 1000, 48000, 0.1));
    expect(vad.level).toBeCloseTo(-23.01, 1);
    vad.process(new Float32Array(960));
    expect(vad.level).toBeLessThan(-150);
    const pcm = Int16Array.from(sine(960, 1000, 48000, 0.5), (v) => Math.round(v * 32767));
    vad.process(pcm);
    expect(vad.level).toBeCloseTo(-9.03, 1);
    vad.destroy();
  });

  it('opens above the threshold and holds for the hangover', () => {
    const vad = new VoiceActivityDetector(core, { thresholdDb: -30, hangoverFrames: 3 });
    const quiet = sine(960, 300, 48000, 0.01); // about -43 dBFS
    const speech = sine(960, 300, 48000, 0.2); // about -17 dBFS
    expect(vad.process(quiet)).toBe(false);
    expect(vad.process(speech)).toBe(true);
    expect([1, 2, 3, 4, 5].map(() => vad.process(quiet))).toEqual([true, true, true, false, false]);
    expect(vad.process(speech)).toBe(true);
    vad.configure(-10, 0);
    expect(vad.process(speech)).toBe(false);
    vad.destroy();
  });

  it('reads 16-bit frames written in place', () => {
    const vad = new VoiceActivityDetector(core, { thresholdDb: -20, hangoverFrames: 0 });
    const input = vad.inputI16();
    for (let i = 0; i < 960; i++) input[i] = i % 2 ? 16384 : -16384; // -6 dBFS square wave
    expect(vad.processInput(960, 'i16')).toBe(true);
    expect(vad.level).toBeCloseTo(-6.02, 1);
    vad.destroy();
  });
});

describe('Resampler 44.1 kHz -> 48 kHz', () => {
  /** Fits a*sin + b*cos at `freq` and returns the residual level relative to the tone, in dB. */
  function toneError(x: Float32Array, freq: number, rate: number): { amplitude: number; errorDb: number } {
    let ss = 0, sc = 0, cc = 0, xs = 0, xc = 0;
    for (let i = 0; i < x.length; i++) {
      const s = Math.sin((2 * Math.PI * freq * i) / rate);
      const c = Math.cos((2 * Math.PI * freq * i) / rate);
      ss += s * s; sc += s * c; cc += c * c; xs += x[i]! * s; xc += x[i]! * c;
    }
    const det = ss * cc - sc * sc;
    const a = (xs * cc - xc * sc) / det;
    const b = (xc * ss - xs * sc) / det;
    let err = 0, sig = 0;
    for (let i = 0; i < x.length; i++) {
      const fit = a * Math.sin((2 * Math.PI * freq * i) / rate) + b * Math.cos((2 * Math.PI * freq * i) / rate);
      err += (x[i]! - fit) ** 2;
      sig += fit * fit;
    }
    return { amplitude: Math.hypot(a, b), errorDb: 10 * Math.log10(err / sig) };
  }

  function run(freq: number, frames: number): Float32Array {
    const rs = new Resampler(core);
    const input = sine(882 * frames, freq, 44100, 0.5);
    const out: number[] = [];
    for (let f = 0; f < frames; f++) {
      const y = rs.process(input.subarray(f * 882, (f + 1) * 882));
      expect(y.length).toBe(960); // 20 ms in, 20 ms out, every frame
      out.push(...y);
    }
    rs.destroy();
    return Float32Array.from(out);
  }

  it('turns 20 ms frames of 882 samples into 960 and keeps a 1 kHz tone clean', () => {
    const y = run(1000, 25);
    const steady = y.subarray(960); // skip the filter's start-up
    const { amplitude, errorDb } = toneError(steady, 1000, 48000);
    expect(amplitude).toBeCloseTo(0.5, 2);
    expect(errorDb).toBeLessThan(-70);
  });

  it('passes 15 kHz within 0.1 dB and stops 23 kHz images', () => {
    const pass = toneError(run(15000, 10).subarray(960), 15000, 48000);
    expect(20 * Math.log10(pass.amplitude / 0.5)).toBeGreaterThan(-0.1);
    expect(pass.errorDb).toBeLessThan(-60);
    // DC stays DC (unity gain across phases: no 300 Hz phase ripple).
    const rs = new Resampler(core);
    const dc = rs.process(new Float32Array(882).fill(0.25));
    const dc2 = rs.process(new Float32Array(882).fill(0.25));
    for (const v of dc2) expect(v).toBeCloseTo(0.25, 3);
    expect(dc.length + dc2.length).toBe(1920);
    rs.destroy();
  });

  it('also downsamples (48 kHz -> 44.1 kHz) with exact lengths and unity gain', () => {
    const rs = new Resampler(core, { inputRate: 48000, outputRate: 44100 });
    const out: number[] = [];
    const input = sine(960 * 12, 1000, 48000, 0.5);
    for (let f = 0; f < 12; f++) {
      const y = rs.process(input.subarray(f * 960, (f + 1) * 960));
      expect(y.length).toBe(882);
      out.push(...y);
    }
    const { amplitude, errorDb } = toneError(Float32Array.from(out).subarray(882), 1000, 44100);
    expect(amplitude).toBeCloseTo(0.5, 2);
    expect(errorDb).toBeLessThan(-60);
    rs.destroy();
  });

  it('handles odd block sizes with exact total length and in-place input', () => {
    const rs = new Resampler(core, { maxInput: 1000 });
    let inTotal = 0, outTotal = 0;
    for (const n of [1, 2, 147, 441, 999, 3, 882, 100]) {
      rs.input().fill(0.1, 0, n);
      outTotal += rs.processInput(n).length;
      inTotal += n;
    }
    expect(Math.abs(outTotal - (inTotal * 160) / 147)).toBeLessThan(1.01);
    expect(() => rs.processInput(1001)).toThrow(RangeError);
    rs.destroy();
    expect(() => new Resampler(core, { inputRate: 44100, outputRate: 48001 })).toThrow(RangeError);
  });
});
