// Audio helpers for the voice tests: a tone generator, a spectrum peak finder and levels.

export const RATE = 48_000;

/** `seconds` of a sine at `hz`, amplitude `amplitude` of full scale, as 48 kHz mono PCM. */
export function tone(hz: number, seconds: number, amplitude = 0.4): Int16Array {
  const n = Math.round(RATE * seconds);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round(Math.sin((2 * Math.PI * hz * i) / RATE) * amplitude * 32767);
  return out;
}

/** Power at `hz` (Goertzel). */
export function goertzel(samples: Int16Array, hz: number): number {
  const k = (2 * Math.cos((2 * Math.PI * hz) / RATE));
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < samples.length; i++) {
    const s0 = samples[i]! / 32768 + k * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return s1 * s1 + s2 * s2 - k * s1 * s2;
}

/** The frequency with the most power between `from` and `to` Hz, in `step` Hz steps. */
/**
 * The strongest frequency between `from` and `to`, in `step` Hz steps. Tests accept the bin next
 * to the expected one: a concealed or late frame on a loaded machine can tip the peak by a step.
 */
export function spectralPeak(samples: Int16Array, from = 100, to = 2000, step = 10): number {
  let best = from;
  let bestPower = -1;
  for (let hz = from; hz <= to; hz += step) {
    const p = goertzel(samples, hz);
    if (p > bestPower) {
      bestPower = p;
      best = hz;
    }
  }
  return best;
}

export function rms(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!;
  return Math.sqrt(sum / samples.length) / 32768;
}

export function concat(chunks: Int16Array[]): Int16Array {
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Collects what a received callback hands over, per user. */
export class Recorder {
  readonly frames = new Map<string, Int16Array[]>();

  readonly callback = (userId: string, samples: Int16Array): void => {
    const list = this.frames.get(userId) ?? [];
    list.push(samples.slice());
    this.frames.set(userId, list);
  };

  framesOf(userId: string): number {
    return this.frames.get(userId)?.length ?? 0;
  }

  /** Everything from `userId` received from frame `from` on. */
  samplesOf(userId: string, from = 0): Int16Array {
    return concat((this.frames.get(userId) ?? []).slice(from));
  }

  /** Frames from `userId` with audible sound (RMS over -50 dBFS). */
  loudFrames(userId: string, from = 0): number {
    return (this.frames.get(userId) ?? []).slice(from).filter((f) => rms(f) > 0.003).length;
  }

  clear(): void {
    this.frames.clear();
  }
}
