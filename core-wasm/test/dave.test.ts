// DAVE frame cipher (protocols.md 4.4) and key ratchet (4.5). Frames are checked byte for byte
// against a construction from node:crypto's AES-128-GCM, the ratchet against an independent
// HKDF over node:crypto's HMAC.
import { createCipheriv, createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CoreError,
  DaveFrameDecryptor,
  DaveFrameEncryptor,
  HashRatchet,
  VoiceCore,
  type KeyRatchet,
} from '../src/index.ts';
import { hex, prng, toHex } from './helpers.ts';

let core: VoiceCore;
beforeAll(async () => {
  core = await VoiceCore.create({ poolBytes: 1 << 20 });
});

/** RFC 9420 ExpandWithLabel with SHA-256, written out independently of src/dave. */
function referenceTreeSecret(secret: Uint8Array, label: string, generation: number, length: number): Uint8Array {
  const full = Buffer.from(`MLS 1.0 ${label}`);
  const context = Buffer.alloc(4);
  context.writeUInt32BE(generation);
  const info = Buffer.concat([Buffer.from([length >> 8, length & 0xff, full.length]), full, Buffer.from([4]), context]);
  const t1 = createHmac('sha256', secret).update(Buffer.concat([info, Buffer.from([1])])).digest();
  return new Uint8Array(t1.subarray(0, length));
}

function referenceKey(base: Uint8Array, generation: number): Uint8Array {
  let secret = base;
  for (let g = 0; g < generation; g++) secret = referenceTreeSecret(secret, 'secret', g, 32);
  return referenceTreeSecret(secret, 'key', generation, 16);
}

function uleb(v: number): number[] {
  const out: number[] = [];
  do {
    let b = v & 0x7f;
    v = Math.floor(v / 128);
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}

/** The frame as protocols.md 4.4 describes it, for an Opus frame (no unencrypted ranges). */
function referenceFrame(key: Uint8Array, nonce: number, frame: Uint8Array): Uint8Array {
  const iv = Buffer.alloc(12);
  iv.writeUInt32LE(nonce, 8);
  const c = createCipheriv('aes-128-gcm', key, iv);
  const ct = Buffer.concat([c.update(frame), c.final()]);
  const tag = c.getAuthTag().subarray(0, 8);
  const n = uleb(nonce);
  return Uint8Array.from([...ct, ...tag, ...n, 8 + n.length + 1 + 2, 0xfa, 0xfa]);
}

describe('HashRatchet', () => {
  it('derives keys as RFC 9420 DeriveTreeSecret over the base secret', () => {
    const base = hex('00112233445566778899aabbccddeeff');
    const ratchet = new HashRatchet(core, base);
    for (const g of [0, 1, 2, 5]) expect(toHex(ratchet.getKey(g)!)).toBe(toHex(referenceKey(base, g)));
    // Out of order within reach; deleted keys and the past are gone; far future refused.
    expect(toHex(ratchet.getKey(3)!)).toBe(toHex(referenceKey(base, 3)));
    ratchet.deleteKey(3);
    expect(ratchet.getKey(3)).toBeUndefined();
    expect(ratchet.getKey(6 + 251)).toBeUndefined();
    expect(ratchet.getKey(6 + 250)).toBeDefined();
    expect(ratchet.getKey(-1)).toBeUndefined();
  });
});

describe('DAVE frame cipher', () => {
  const base = prng(1)(16);

  it('encrypts Opus frames byte-exact to protocols.md 4.4 and decrypts them', () => {
    const enc = new DaveFrameEncryptor(core, new HashRatchet(core, base));
    const dec = new DaveFrameDecryptor(core, new HashRatchet(core, base));
    const rnd = prng(2);
    for (let i = 1; i <= 200; i++) {
      const frame = rnd(1 + (i % 120));
      const out = new Uint8Array(frame.length + 16);
      const n = enc.encrypt(frame, frame.length, out);
      expect(toHex(out.subarray(0, n))).toBe(toHex(referenceFrame(referenceKey(base, 0), i, frame)));
      const plain = new Uint8Array(n);
      expect(dec.decrypt(out, n, plain)).toBe(frame.length);
      expect(plain.subarray(0, frame.length)).toEqual(frame);
      expect(dec.lastNonce).toBe(i);
    }
  });

  it('works in place in core memory', () => {
    const enc = new DaveFrameEncryptor(core, new HashRatchet(core, base));
    const dec = new DaveFrameDecryptor(core, new HashRatchet(core, base));
    const buf = core.alloc(200).bytes;
    const frame = prng(3)(120);
    buf.set(frame);
    const n = enc.encrypt(buf, 120, buf);
    expect(n).toBe(120 + 12);
    expect(dec.decrypt(buf, n, buf)).toBe(120);
    expect(buf.subarray(0, 120)).toEqual(frame);
  });

  it('passes the silence frame F8 FF FE through without using a nonce', () => {
    const enc = new DaveFrameEncryptor(core, new HashRatchet(core, base));
    const dec = new DaveFrameDecryptor(core, new HashRatchet(core, base));
    const silence = Uint8Array.of(0xf8, 0xff, 0xfe);
    const out = new Uint8Array(8);
    expect(enc.encrypt(silence, 3, out)).toBe(3);
    expect(out.subarray(0, 3)).toEqual(silence);
    expect(enc.lastNonce).toBe(0);
    const plain = new Uint8Array(8);
    expect(dec.decrypt(silence, 3, plain)).toBe(3);
    expect(plain.subarray(0, 3)).toEqual(silence);
  });

  it('keeps unencrypted ranges in place and authenticates them', () => {
    const ratchet = new HashRatchet(core, base);
    const enc = new DaveFrameEncryptor(core, ratchet);
    const dec = new DaveFrameDecryptor(core, new HashRatchet(core, base));
    const frame = prng(4)(300);
    const ranges = [
      { offset: 0, length: 4 },
      { offset: 10, length: 3 },
      { offset: 200, length: 150 - 50 },
    ];
    const out = new Uint8Array(400);
    const n = enc.encrypt(frame, 300, out, ranges);
    expect(n).toBeGreaterThan(300);
    for (const r of ranges) expect(out.subarray(r.offset, r.offset + r.length)).toEqual(frame.subarray(r.offset, r.offset + r.length));
    // Reference: AAD = the unencrypted bytes concatenated; ciphertext fills the gaps.
    const iv = Buffer.alloc(12);
    iv.writeUInt32LE(1, 8);
    const c = createCipheriv('aes-128-gcm', referenceKey(base, 0), iv);
    c.setAAD(Buffer.concat(ranges.map((r) => frame.subarray(r.offset, r.offset + r.length))));
    const gaps = Buffer.concat([frame.subarray(4, 10), frame.subarray(13, 200), frame.subarray(300)]);
    const ct = Buffer.concat([c.update(gaps), c.final()]);
    const tag = c.getAuthTag().subarray(0, 8);
    expect(toHex(Buffer.concat([out.subarray(4, 10), out.subarray(13, 200)]))).toBe(toHex(ct));
    expect(toHex(out.subarray(300, 308))).toBe(toHex(tag));
    const trailer = [...uleb(1), ...uleb(0), ...uleb(4), ...uleb(10), ...uleb(3), ...uleb(200), ...uleb(100)];
    expect([...out.subarray(308, n)]).toEqual([...trailer, 8 + trailer.length + 3, 0xfa, 0xfa]);
    const plain = new Uint8Array(400);
    expect(dec.decrypt(out, n, plain)).toBe(300);
    expect(plain.subarray(0, 300)).toEqual(frame);
    // Changing an unencrypted byte breaks authentication.
    out[11]! ^= 1;
    expect(new DaveFrameDecryptor(core, new HashRatchet(core, base)).decrypt(out, n, plain)).toBe(CoreError.AuthFailed);
    // Bad ranges are refused on encrypt.
    expect(enc.encrypt(frame, 300, out, [{ offset: 10, length: 5 }, { offset: 12, length: 1 }])).toBe(CoreError.BadArgument);
    expect(enc.encrypt(frame, 300, out, [{ offset: 299, length: 5 }])).toBe(CoreError.BadArgument);
  });

  it('rejects replays, accepts reordering', () => {
    const enc = new DaveFrameEncryptor(core, new HashRatchet(core, base));
    const dec = new DaveFrameDecryptor(core, new HashRatchet(core, base));
    const frames = [1, 2, 3, 4].map((i) => {
      const out = new Uint8Array(64);
      const n = enc.encrypt(Uint8Array.of(i, i, i), 3, out);
      return out.slice(0, n);
    });
    const plain = new Uint8Array(64);
    for (const i of [2, 0, 3, 1]) expect(dec.decrypt(frames[i]!, frames[i]!.length, plain)).toBe(3);
    for (const f of frames) expect(dec.decrypt(f, f.length, plain)).toBe(CoreError.Replayed);
  });

  it('rejects every single-bit flip and every truncation', () => {
    const enc = new DaveFrameEncryptor(core, new HashRatchet(core, base), 1000);
    const frame = prng(5)(40);
    const out = new Uint8Array(64);
    const n = enc.encrypt(frame, 40, out);
    const sealed = out.slice(0, n);
    const plain = new Uint8Array(64);
    for (let bit = 0; bit < n * 8; bit++) {
      const work = sealed.slice();
      work[bit >> 3]! ^= 1 << (bit & 7);
      const dec = new DaveFrameDecryptor(core, new HashRatchet(core, base));
      expect(dec.decrypt(work, n, plain), `bit ${bit}`).toBeLessThan(0);
      dec.destroy();
    }
    const dec = new DaveFrameDecryptor(core, new HashRatchet(core, base));
    for (let len = 0; len < n; len++) expect(dec.decrypt(sealed, len, plain), `length ${len}`).toBeLessThan(0);
    expect(dec.decrypt(sealed, n + 1, plain)).toBe(CoreError.TooLong);
    expect(dec.decrypt(sealed, n, plain)).toBe(40);
  });

  it('rejects malformed trailers', () => {
    const dec = new DaveFrameDecryptor(core, new HashRatchet(core, base));
    const plain = new Uint8Array(64);
    const body = new Uint8Array(20);
    const frame = (trailer: number[]) => Uint8Array.from([...body, ...trailer]);
    const tag = new Array(8).fill(0);
    expect(dec.decrypt(frame([...tag, 1, 12, 0xfa, 0xfb]), 32, plain)).toBe(CoreError.BadFrame); // marker
    expect(dec.decrypt(frame([...tag, 1, 200, 0xfa, 0xfa]), 32, plain)).toBe(CoreError.BadFrame); // size > frame
    expect(dec.decrypt(frame([...tag, 1, 5, 0xfa, 0xfa]), 32, plain)).toBe(CoreError.BadFrame); // size < minimum
    expect(dec.decrypt(frame([...tag, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 17, 0xfa, 0xfa]), 37, plain)).toBe(CoreError.BadFrame); // ULEB > u32
    expect(dec.decrypt(frame([...tag, 0x81, 12, 0xfa, 0xfa]), 32, plain)).toBe(CoreError.BadFrame); // ULEB runs into the size byte
    expect(dec.decrypt(frame([...tag, 1, 5, 30, 14, 0xfa, 0xfa]), 34, plain)).toBe(CoreError.BadFrame); // range beyond frame
    expect(dec.decrypt(frame([...tag, 1, 5, 2, 3, 1, 15, 0xfa, 0xfa]), 36, plain)).toBe(CoreError.BadFrame); // ranges overlap
  });

  it('switches keys by generation (top byte of the nonce) and expires old generations after 10 s', () => {
    let now = 0;
    const enc = new DaveFrameEncryptor(core, new HashRatchet(core, base), 0x00fffffe);
    const dec = new DaveFrameDecryptor(core, new HashRatchet(core, base), { now: () => now });
    const frames = [0, 1, 2].map(() => {
      const out = new Uint8Array(64);
      const n = enc.encrypt(Uint8Array.of(7, 7), 2, out);
      return out.slice(0, n);
    });
    // nonces 0x00ffffff (generation 0), 0x01000000 and 0x01000001 (generation 1)
    expect(enc.lastNonce).toBe(0x01000001);
    const plain = new Uint8Array(64);
    expect(dec.decrypt(frames[1]!, frames[1]!.length, plain)).toBe(2);
    now = 5_000;
    expect(dec.decrypt(frames[0]!, frames[0]!.length, plain)).toBe(2); // late frame of the older generation
    expect(dec.decrypt(frames[2]!, frames[2]!.length, plain)).toBe(2);
    // An older-generation frame arriving more than 10 s after the newer generation: key gone.
    const late = new DaveFrameEncryptor(core, new HashRatchet(core, base), 0x00fffff0);
    const out = new Uint8Array(64);
    const n = late.encrypt(Uint8Array.of(1), 1, out);
    now = 10_001;
    expect(dec.decrypt(out, n, plain)).toBe(CoreError.NoKey);
  });

  it('keeps the previous epoch for 10 s after a new ratchet', () => {
    let now = 0;
    const next = prng(9)(16);
    const oldEnc = new DaveFrameEncryptor(core, new HashRatchet(core, base));
    const newEnc = new DaveFrameEncryptor(core, new HashRatchet(core, next));
    const dec = new DaveFrameDecryptor(core, new HashRatchet(core, base), { now: () => now });
    const make = (enc: DaveFrameEncryptor) => {
      const out = new Uint8Array(64);
      const n = enc.encrypt(Uint8Array.of(9, 9, 9, 9), 4, out);
      return out.slice(0, n);
    };
    const plain = new Uint8Array(64);
    const a = make(oldEnc);
    expect(dec.decrypt(a, a.length, plain)).toBe(4);
    dec.setRatchet(new HashRatchet(core, next));
    const b = make(newEnc);
    expect(dec.decrypt(b, b.length, plain)).toBe(4);
    const c = make(oldEnc);
    now = 9_000;
    expect(dec.decrypt(c, c.length, plain)).toBe(4);
    const d = make(oldEnc);
    now = 10_001;
    expect(dec.decrypt(d, d.length, plain)).toBeLessThan(0);
  });

  it('reports a missing key instead of throwing', () => {
    const empty: KeyRatchet = { getKey: () => undefined, deleteKey: () => {} };
    const enc = new DaveFrameEncryptor(core, empty);
    expect(enc.encrypt(Uint8Array.of(1, 2), 2, new Uint8Array(32))).toBe(CoreError.NoKey);
  });
});
