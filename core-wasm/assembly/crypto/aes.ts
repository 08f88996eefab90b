// AES-128/256 encryption (FIPS 197) with 32-bit T-tables, generated at start-up into fixed
// low memory (tables.ts). T-tables are fast in WASM but their lookups depend on secret data:
// cache-timing attacks against them are known on shared hardware. We accept that here (voice
// transport and media keys, short-lived, in a browser tab or a relay process) and say so in
// the README; node:crypto (AES-NI) is the constant-time backend. Only the forward cipher is
// needed: GCM uses AES in counter mode both ways.
import { SBOX_ADDR, TE_ADDR } from './tables';

/** Byte size of an expanded key: round keys (240) + round count + last round key little-endian. */
export const AES_KEY_SIZE: usize = 272;

function xtime(x: u32): u32 {
  return ((x << 1) ^ ((x >> 7) * 0x1b)) & 0xff;
}

function rotl8(x: u32, n: u32): u32 {
  return ((x << n) | (x >> (8 - n))) & 0xff;
}

function initTables(): void {
  // Walk GF(2^8)* with generator 3: p = 3^i, q = 3^-i, so q is the inverse of p.
  let p: u32 = 1, q: u32 = 1;
  do {
    p = (p ^ xtime(p)) & 0xff;
    q ^= q << 1;
    q ^= q << 2;
    q ^= q << 4;
    q &= 0xff;
    if (q & 0x80) q ^= 0x09;
    const x = q ^ rotl8(q, 1) ^ rotl8(q, 2) ^ rotl8(q, 3) ^ rotl8(q, 4);
    store<u8>(SBOX_ADDR + p, <u8>(x ^ 0x63));
  } while (p != 1);
  store<u8>(SBOX_ADDR, 0x63);
  // Te0[x] = (2s, s, s, 3s) as a big-endian word; Te1..Te3 are its byte rotations.
  for (let i: u32 = 0; i < 256; i++) {
    const s = <u32>load<u8>(SBOX_ADDR + i);
    const s2 = xtime(s);
    const t = (s2 << 24) | (s << 16) | (s << 8) | (s2 ^ s);
    store<u32>(TE_ADDR + (i << 2), t);
    store<u32>(TE_ADDR + 1024 + (i << 2), rotr<u32>(t, 8));
    store<u32>(TE_ADDR + 2048 + (i << 2), rotr<u32>(t, 16));
    store<u32>(TE_ADDR + 3072 + (i << 2), rotr<u32>(t, 24));
  }
}

initTables();

// Lookups by byte 3 (top), 2, 1 and 0 of a big-endian state word, straight from shifts to
// byte offsets; the table base is the load's immediate offset.
// @ts-ignore: decorator
@inline function t0(x: u32): u32 {
  return load<u32>(<usize>((x >>> 22) & 0x3fc), TE_ADDR);
}
// @ts-ignore: decorator
@inline function t1(x: u32): u32 {
  return load<u32>(<usize>((x >>> 14) & 0x3fc), TE_ADDR + 1024);
}
// @ts-ignore: decorator
@inline function t2(x: u32): u32 {
  return load<u32>(<usize>((x >>> 6) & 0x3fc), TE_ADDR + 2048);
}
// @ts-ignore: decorator
@inline function t3(x: u32): u32 {
  return load<u32>(<usize>((x << 2) & 0x3fc), TE_ADDR + 3072);
}

/**
 * The final round (SubBytes, ShiftRows, no MixColumns) for output word (a, b, c, d), produced
 * directly in little-endian byte order (S[a.byte3] lowest): each S-box value is read out of the
 * T-table entry that holds it at the wanted byte position.
 */
// @ts-ignore: decorator
@inline function lastLE(a: u32, b: u32, c: u32, d: u32): u32 {
  return (
    (load<u32>(<usize>((a >>> 22) & 0x3fc), TE_ADDR + 1024) & 0x000000ff) |
    (load<u32>(<usize>((b >>> 14) & 0x3fc), TE_ADDR) & 0x0000ff00) |
    (load<u32>(<usize>((c >>> 6) & 0x3fc), TE_ADDR) & 0x00ff0000) |
    (load<u32>(<usize>((d << 2) & 0x3fc), TE_ADDR + 3072) & 0xff000000)
  );
}

// @ts-ignore: decorator
@inline function subWord(w: u32): u32 {
  return (
    (<u32>load<u8>(SBOX_ADDR + (w >> 24)) << 24) |
    (<u32>load<u8>(SBOX_ADDR + ((w >> 16) & 0xff)) << 16) |
    (<u32>load<u8>(SBOX_ADDR + ((w >> 8) & 0xff)) << 8) |
    <u32>load<u8>(SBOX_ADDR + (w & 0xff))
  );
}

/**
 * Expands a 16- or 32-byte key into `rk` (AES_KEY_SIZE bytes: round keys as big-endian words,
 * the round count at 240, the last round key little-endian at 256); returns the round count.
 */
export function aesExpandKey(key: usize, keyLen: i32, rk: usize): i32 {
  const nk = keyLen >> 2;
  const rounds = nk + 6;
  const total = 4 * (rounds + 1);
  for (let i = 0; i < nk; i++) store<u32>(rk + (<usize>i << 2), bswap<u32>(load<u32>(key + (<usize>i << 2))));
  let rcon: u32 = 1;
  for (let i = nk; i < total; i++) {
    let t = load<u32>(rk + (<usize>(i - 1) << 2));
    if (i % nk == 0) {
      t = subWord(rotl<u32>(t, 8)) ^ (rcon << 24);
      rcon = xtime(rcon);
    } else if (nk > 6 && i % nk == 4) {
      t = subWord(t);
    }
    store<u32>(rk + (<usize>i << 2), load<u32>(rk + (<usize>(i - nk) << 2)) ^ t);
  }
  store<u32>(rk + 240, <u32>rounds);
  const last = rk + (<usize>(rounds * 16));
  for (let i: usize = 0; i < 4; i++) store<u32>(rk + 256 + (i << 2), bswap<u32>(load<u32>(last + (i << 2))));
  return rounds;
}

/** Encrypts the block given as four big-endian words and stores the 16 ciphertext bytes at `out`. */
export function aesEncryptWords(rk: usize, w0: u32, w1: u32, w2: u32, w3: u32, out: usize): void {
  const rounds = <i32>load<u32>(rk + 240);
  let s0 = w0 ^ load<u32>(rk, 0);
  let s1 = w1 ^ load<u32>(rk, 4);
  let s2 = w2 ^ load<u32>(rk, 8);
  let s3 = w3 ^ load<u32>(rk, 12);
  let k = rk + 16;
  for (let r = 1; r < rounds; r++) {
    const x0 = t0(s0) ^ t1(s1) ^ t2(s2) ^ t3(s3) ^ load<u32>(k, 0);
    const x1 = t0(s1) ^ t1(s2) ^ t2(s3) ^ t3(s0) ^ load<u32>(k, 4);
    const x2 = t0(s2) ^ t1(s3) ^ t2(s0) ^ t3(s1) ^ load<u32>(k, 8);
    const x3 = t0(s3) ^ t1(s0) ^ t2(s1) ^ t3(s2) ^ load<u32>(k, 12);
    s0 = x0; s1 = x1; s2 = x2; s3 = x3;
    k += 16;
  }
  store<u32>(out, lastLE(s0, s1, s2, s3) ^ load<u32>(rk, 256), 0);
  store<u32>(out, lastLE(s1, s2, s3, s0) ^ load<u32>(rk, 260), 4);
  store<u32>(out, lastLE(s2, s3, s0, s1) ^ load<u32>(rk, 264), 8);
  store<u32>(out, lastLE(s3, s0, s1, s2) ^ load<u32>(rk, 268), 12);
}

/** Encrypts one 16-byte block src -> dst. */
export function aesEncryptBlock(rk: usize, src: usize, dst: usize): void {
  aesEncryptWords(
    rk,
    bswap<u32>(load<u32>(src, 0)),
    bswap<u32>(load<u32>(src, 4)),
    bswap<u32>(load<u32>(src, 8)),
    bswap<u32>(load<u32>(src, 12)),
    dst,
  );
}

const KS: usize = memory.data(16, 16);

/**
 * CTR mode: XORs the keystream of counter blocks (n0, n1, n2, c), (n0, n1, n2, c + 1), ...
 * (big-endian words; GCM's inc32) into src -> dst, src == dst allowed. One block at a time:
 * interleaving blocks measured slower (the engine spills the extra state). Only the counter
 * word changes between blocks, so the lookups of the three nonce words in round 1 are computed
 * once per call, and most of rounds 1-2 once per 256 blocks (counter-mode caching).
 */
export function aesCtrXor(rk: usize, n0: u32, n1: u32, n2: u32, c: u32, src: usize, dst: usize, len: usize): void {
  const rounds = <i32>load<u32>(rk + 240);
  const w0 = n0 ^ load<u32>(rk, 0), w1 = n1 ^ load<u32>(rk, 4), w2 = n2 ^ load<u32>(rk, 8);
  const r3 = load<u32>(rk, 12);
  // Round 1 without the counter word's terms.
  const p0 = t0(w0) ^ t1(w1) ^ t2(w2) ^ load<u32>(rk, 16);
  const p1 = t0(w1) ^ t1(w2) ^ t3(w0) ^ load<u32>(rk, 20);
  const p2 = t0(w2) ^ t2(w0) ^ t3(w1) ^ load<u32>(rk, 24);
  const p3 = t1(w0) ^ t2(w1) ^ t3(w2) ^ load<u32>(rk, 28);
  const l0 = load<u32>(rk, 256), l1 = load<u32>(rk, 260), l2 = load<u32>(rk, 264), l3 = load<u32>(rk, 268);
  while (len >= 16) {
    // A run of blocks whose counters differ only in the low byte: after round 1 only word 0
    // depends on that byte, so most of rounds 1 and 2 is computed once per run
    // (Bernstein-Schwabe counter-mode caching).
    const x = c ^ r3;
    const b1 = p1 ^ t2(x), b2 = p2 ^ t1(x), b3 = p3 ^ t0(x);
    const q0 = t1(b1) ^ t2(b2) ^ t3(b3) ^ load<u32>(rk, 32);
    const q1 = t0(b1) ^ t1(b2) ^ t2(b3) ^ load<u32>(rk, 36);
    const q2 = t0(b2) ^ t1(b3) ^ t3(b1) ^ load<u32>(rk, 40);
    const q3 = t0(b3) ^ t2(b1) ^ t3(b2) ^ load<u32>(rk, 44);
    let run = <usize>(256 - (c & 0xff));
    const blocks = len >> 4;
    if (run > blocks) run = blocks;
    for (let i: usize = 0; i < run; i++) {
      const b0 = p0 ^ t3(c ^ r3);
      let a0 = q0 ^ t0(b0), a1 = q1 ^ t3(b0), a2 = q2 ^ t2(b0), a3 = q3 ^ t1(b0);
      let k = rk + 48;
      for (let r = 3; r < rounds; r++) {
        const at0 = t0(a0) ^ t1(a1) ^ t2(a2) ^ t3(a3) ^ load<u32>(k, 0);
        const at1 = t0(a1) ^ t1(a2) ^ t2(a3) ^ t3(a0) ^ load<u32>(k, 4);
        const at2 = t0(a2) ^ t1(a3) ^ t2(a0) ^ t3(a1) ^ load<u32>(k, 8);
        const at3 = t0(a3) ^ t1(a0) ^ t2(a1) ^ t3(a2) ^ load<u32>(k, 12);
        a0 = at0; a1 = at1; a2 = at2; a3 = at3;
        k += 16;
      }
      store<u32>(dst, load<u32>(src, 0) ^ lastLE(a0, a1, a2, a3) ^ l0, 0);
      store<u32>(dst, load<u32>(src, 4) ^ lastLE(a1, a2, a3, a0) ^ l1, 4);
      store<u32>(dst, load<u32>(src, 8) ^ lastLE(a2, a3, a0, a1) ^ l2, 8);
      store<u32>(dst, load<u32>(src, 12) ^ lastLE(a3, a0, a1, a2) ^ l3, 12);
      c += 1;
      src += 16;
      dst += 16;
    }
    len -= run << 4;
  }
  while (len > 0) {
    aesEncryptWords(rk, n0, n1, n2, c, KS);
    const n = len < 16 ? len : 16;
    if (n == 16) v128.store(dst, v128.xor(v128.load(src), v128.load(KS)));
    else for (let i: usize = 0; i < n; i++) store<u8>(dst + i, load<u8>(src + i) ^ load<u8>(KS + i));
    c++;
    src += n;
    dst += n;
    len -= n;
  }
  v128.store(KS, v128.splat<i32>(0));
}
