import type { VoiceCore } from '../src/index.ts';

export const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/[\s:]/g, ''), 'hex'));
export const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
export const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Deterministic pseudo-random bytes (xorshift), so failures reproduce. */
export function prng(seed: number): (n: number) => Uint8Array {
  let x = seed >>> 0 || 1;
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      out[i] = x & 0xff;
    }
    return out;
  };
}

/** Lays out byte arrays in core scratch and returns their addresses. */
export function place(core: VoiceCore, ...parts: Uint8Array[]): number[] {
  const total = parts.reduce((n, p) => n + p.length + 16, 0);
  let at = core.scratchAddress(total);
  const out: number[] = [];
  for (const p of parts) {
    core.bytes.set(p, at);
    out.push(at);
    at += p.length + 16;
  }
  return out;
}

export function chacha20(core: VoiceCore, key: Uint8Array, nonce: Uint8Array, counter: number, data: Uint8Array): Uint8Array {
  const [k, n, d] = place(core, key, nonce, data);
  core.exports.chacha20Xor(k!, n!, counter, d!, d!, data.length);
  return core.bytes.slice(d!, d! + data.length);
}

export function poly1305(core: VoiceCore, key: Uint8Array, msg: Uint8Array): Uint8Array {
  const [k, m, o] = place(core, key, msg, new Uint8Array(16));
  core.exports.poly1305(k!, m!, msg.length, o!);
  return core.bytes.slice(o!, o! + 16);
}
