// ChaCha20 (RFC 8439 2.3-2.4) and HChaCha20 (draft-irtf-cfrg-xchacha 2.2). The stream path runs
// four blocks at once in WASM SIMD lanes (lane b = block counter + b), which covers a whole
// 160-byte voice packet plus the Poly1305 key block in one pass. No tables, no data-dependent
// branches or addresses: constant time by construction.

const SIGMA0: u32 = 0x61707865;
const SIGMA1: u32 = 0x3320646e;
const SIGMA2: u32 = 0x79622d32;
const SIGMA3: u32 = 0x6b206574;

/** 256 bytes of keystream for partial chunks (four blocks). */
export const KEYSTREAM: usize = memory.data(256, 16);

// @ts-ignore: decorator
@inline function rotl16(x: v128): v128 {
  return i8x16.shuffle(x, x, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
}

// @ts-ignore: decorator
@inline function rotl8(x: v128): v128 {
  return i8x16.shuffle(x, x, 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14);
}

// @ts-ignore: decorator
@inline function rotl12(x: v128): v128 {
  return v128.or(i32x4.shl(x, 12), i32x4.shr_u(x, 20));
}

// @ts-ignore: decorator
@inline function rotl7(x: v128): v128 {
  return v128.or(i32x4.shl(x, 7), i32x4.shr_u(x, 25));
}

/**
 * XORs `len` bytes of keystream into in -> out (in == out allowed), starting at block `counter`
 * with key (32 bytes) and 12-byte nonce. When `skipFirst` is set, the first block of the first
 * chunk is not used for data but copied to `firstBlock` (the AEAD's Poly1305 key block), and
 * data starts at counter + 1.
 */
export function chachaXor(
  key: usize,
  nonce: usize,
  counter: u32,
  src: usize,
  dst: usize,
  len: usize,
  firstBlock: usize,
): void {
  const k0 = load<u32>(key, 0), k1 = load<u32>(key, 4), k2 = load<u32>(key, 8), k3 = load<u32>(key, 12);
  const k4 = load<u32>(key, 16), k5 = load<u32>(key, 20), k6 = load<u32>(key, 24), k7 = load<u32>(key, 28);
  const n0 = load<u32>(nonce, 0), n1 = load<u32>(nonce, 4), n2 = load<u32>(nonce, 8);
  const laneOffsets = i32x4(0, 1, 2, 3);
  let first = firstBlock != 0;
  let ctr = counter;
  while (true) {
    // Four blocks, word-sliced: xi holds word i of blocks ctr..ctr+3.
    let x0 = i32x4.splat(SIGMA0), x1 = i32x4.splat(SIGMA1), x2 = i32x4.splat(SIGMA2), x3 = i32x4.splat(SIGMA3);
    let x4 = i32x4.splat(k0), x5 = i32x4.splat(k1), x6 = i32x4.splat(k2), x7 = i32x4.splat(k3);
    let x8 = i32x4.splat(k4), x9 = i32x4.splat(k5), x10 = i32x4.splat(k6), x11 = i32x4.splat(k7);
    const c12 = i32x4.add(i32x4.splat(ctr), laneOffsets);
    let x12 = c12, x13 = i32x4.splat(n0), x14 = i32x4.splat(n1), x15 = i32x4.splat(n2);
    for (let i = 0; i < 10; i++) {
      // columns
      x0 = i32x4.add(x0, x4); x12 = rotl16(v128.xor(x12, x0));
      x8 = i32x4.add(x8, x12); x4 = rotl12(v128.xor(x4, x8));
      x0 = i32x4.add(x0, x4); x12 = rotl8(v128.xor(x12, x0));
      x8 = i32x4.add(x8, x12); x4 = rotl7(v128.xor(x4, x8));
      x1 = i32x4.add(x1, x5); x13 = rotl16(v128.xor(x13, x1));
      x9 = i32x4.add(x9, x13); x5 = rotl12(v128.xor(x5, x9));
      x1 = i32x4.add(x1, x5); x13 = rotl8(v128.xor(x13, x1));
      x9 = i32x4.add(x9, x13); x5 = rotl7(v128.xor(x5, x9));
      x2 = i32x4.add(x2, x6); x14 = rotl16(v128.xor(x14, x2));
      x10 = i32x4.add(x10, x14); x6 = rotl12(v128.xor(x6, x10));
      x2 = i32x4.add(x2, x6); x14 = rotl8(v128.xor(x14, x2));
      x10 = i32x4.add(x10, x14); x6 = rotl7(v128.xor(x6, x10));
      x3 = i32x4.add(x3, x7); x15 = rotl16(v128.xor(x15, x3));
      x11 = i32x4.add(x11, x15); x7 = rotl12(v128.xor(x7, x11));
      x3 = i32x4.add(x3, x7); x15 = rotl8(v128.xor(x15, x3));
      x11 = i32x4.add(x11, x15); x7 = rotl7(v128.xor(x7, x11));
      // diagonals
      x0 = i32x4.add(x0, x5); x15 = rotl16(v128.xor(x15, x0));
      x10 = i32x4.add(x10, x15); x5 = rotl12(v128.xor(x5, x10));
      x0 = i32x4.add(x0, x5); x15 = rotl8(v128.xor(x15, x0));
      x10 = i32x4.add(x10, x15); x5 = rotl7(v128.xor(x5, x10));
      x1 = i32x4.add(x1, x6); x12 = rotl16(v128.xor(x12, x1));
      x11 = i32x4.add(x11, x12); x6 = rotl12(v128.xor(x6, x11));
      x1 = i32x4.add(x1, x6); x12 = rotl8(v128.xor(x12, x1));
      x11 = i32x4.add(x11, x12); x6 = rotl7(v128.xor(x6, x11));
      x2 = i32x4.add(x2, x7); x13 = rotl16(v128.xor(x13, x2));
      x8 = i32x4.add(x8, x13); x7 = rotl12(v128.xor(x7, x8));
      x2 = i32x4.add(x2, x7); x13 = rotl8(v128.xor(x13, x2));
      x8 = i32x4.add(x8, x13); x7 = rotl7(v128.xor(x7, x8));
      x3 = i32x4.add(x3, x4); x14 = rotl16(v128.xor(x14, x3));
      x9 = i32x4.add(x9, x14); x4 = rotl12(v128.xor(x4, x9));
      x3 = i32x4.add(x3, x4); x14 = rotl8(v128.xor(x14, x3));
      x9 = i32x4.add(x9, x14); x4 = rotl7(v128.xor(x4, x9));
    }
    x0 = i32x4.add(x0, i32x4.splat(SIGMA0)); x1 = i32x4.add(x1, i32x4.splat(SIGMA1));
    x2 = i32x4.add(x2, i32x4.splat(SIGMA2)); x3 = i32x4.add(x3, i32x4.splat(SIGMA3));
    x4 = i32x4.add(x4, i32x4.splat(k0)); x5 = i32x4.add(x5, i32x4.splat(k1));
    x6 = i32x4.add(x6, i32x4.splat(k2)); x7 = i32x4.add(x7, i32x4.splat(k3));
    x8 = i32x4.add(x8, i32x4.splat(k4)); x9 = i32x4.add(x9, i32x4.splat(k5));
    x10 = i32x4.add(x10, i32x4.splat(k6)); x11 = i32x4.add(x11, i32x4.splat(k7));
    x12 = i32x4.add(x12, c12); x13 = i32x4.add(x13, i32x4.splat(n0));
    x14 = i32x4.add(x14, i32x4.splat(n1)); x15 = i32x4.add(x15, i32x4.splat(n2));

    // Transpose 4x4 groups so that each v128 holds 16 consecutive keystream bytes of one block.
    let a0 = x0, a1 = x1, a2 = x2, a3 = x3;
    let t0 = i32x4.shuffle(a0, a1, 0, 4, 1, 5), t1 = i32x4.shuffle(a2, a3, 0, 4, 1, 5);
    let t2 = i32x4.shuffle(a0, a1, 2, 6, 3, 7), t3 = i32x4.shuffle(a2, a3, 2, 6, 3, 7);
    const b0w0 = i64x2.shuffle(t0, t1, 0, 2), b1w0 = i64x2.shuffle(t0, t1, 1, 3);
    const b2w0 = i64x2.shuffle(t2, t3, 0, 2), b3w0 = i64x2.shuffle(t2, t3, 1, 3);
    a0 = x4; a1 = x5; a2 = x6; a3 = x7;
    t0 = i32x4.shuffle(a0, a1, 0, 4, 1, 5); t1 = i32x4.shuffle(a2, a3, 0, 4, 1, 5);
    t2 = i32x4.shuffle(a0, a1, 2, 6, 3, 7); t3 = i32x4.shuffle(a2, a3, 2, 6, 3, 7);
    const b0w1 = i64x2.shuffle(t0, t1, 0, 2), b1w1 = i64x2.shuffle(t0, t1, 1, 3);
    const b2w1 = i64x2.shuffle(t2, t3, 0, 2), b3w1 = i64x2.shuffle(t2, t3, 1, 3);
    a0 = x8; a1 = x9; a2 = x10; a3 = x11;
    t0 = i32x4.shuffle(a0, a1, 0, 4, 1, 5); t1 = i32x4.shuffle(a2, a3, 0, 4, 1, 5);
    t2 = i32x4.shuffle(a0, a1, 2, 6, 3, 7); t3 = i32x4.shuffle(a2, a3, 2, 6, 3, 7);
    const b0w2 = i64x2.shuffle(t0, t1, 0, 2), b1w2 = i64x2.shuffle(t0, t1, 1, 3);
    const b2w2 = i64x2.shuffle(t2, t3, 0, 2), b3w2 = i64x2.shuffle(t2, t3, 1, 3);
    a0 = x12; a1 = x13; a2 = x14; a3 = x15;
    t0 = i32x4.shuffle(a0, a1, 0, 4, 1, 5); t1 = i32x4.shuffle(a2, a3, 0, 4, 1, 5);
    t2 = i32x4.shuffle(a0, a1, 2, 6, 3, 7); t3 = i32x4.shuffle(a2, a3, 2, 6, 3, 7);
    const b0w3 = i64x2.shuffle(t0, t1, 0, 2), b1w3 = i64x2.shuffle(t0, t1, 1, 3);
    const b2w3 = i64x2.shuffle(t2, t3, 0, 2), b3w3 = i64x2.shuffle(t2, t3, 1, 3);

    if (!first && len >= 256) {
      // Whole chunk straight from registers.
      v128.store(dst, v128.xor(v128.load(src, 0), b0w0), 0);
      v128.store(dst, v128.xor(v128.load(src, 16), b0w1), 16);
      v128.store(dst, v128.xor(v128.load(src, 32), b0w2), 32);
      v128.store(dst, v128.xor(v128.load(src, 48), b0w3), 48);
      v128.store(dst, v128.xor(v128.load(src, 64), b1w0), 64);
      v128.store(dst, v128.xor(v128.load(src, 80), b1w1), 80);
      v128.store(dst, v128.xor(v128.load(src, 96), b1w2), 96);
      v128.store(dst, v128.xor(v128.load(src, 112), b1w3), 112);
      v128.store(dst, v128.xor(v128.load(src, 128), b2w0), 128);
      v128.store(dst, v128.xor(v128.load(src, 144), b2w1), 144);
      v128.store(dst, v128.xor(v128.load(src, 160), b2w2), 160);
      v128.store(dst, v128.xor(v128.load(src, 176), b2w3), 176);
      v128.store(dst, v128.xor(v128.load(src, 192), b3w0), 192);
      v128.store(dst, v128.xor(v128.load(src, 208), b3w1), 208);
      v128.store(dst, v128.xor(v128.load(src, 224), b3w2), 224);
      v128.store(dst, v128.xor(v128.load(src, 240), b3w3), 240);
      src += 256;
      dst += 256;
      len -= 256;
      ctr += 4;
      if (len == 0) return;
      continue;
    }

    const ks = KEYSTREAM;
    v128.store(ks, b0w0, 0); v128.store(ks, b0w1, 16); v128.store(ks, b0w2, 32); v128.store(ks, b0w3, 48);
    v128.store(ks, b1w0, 64); v128.store(ks, b1w1, 80); v128.store(ks, b1w2, 96); v128.store(ks, b1w3, 112);
    v128.store(ks, b2w0, 128); v128.store(ks, b2w1, 144); v128.store(ks, b2w2, 160); v128.store(ks, b2w3, 176);
    v128.store(ks, b3w0, 192); v128.store(ks, b3w1, 208); v128.store(ks, b3w2, 224); v128.store(ks, b3w3, 240);
    let off: usize = 0;
    if (first) {
      v128.store(firstBlock, b0w0, 0);
      v128.store(firstBlock, b0w1, 16);
      v128.store(firstBlock, b0w2, 32);
      v128.store(firstBlock, b0w3, 48);
      off = 64;
      first = false;
    }
    const avail: usize = 256 - off;
    const n = len < avail ? len : avail;
    xorBytes(src, dst, ks + off, n);
    src += n;
    dst += n;
    len -= n;
    ctr += 4;
    if (len == 0) return;
  }
}

/** dst[i] = src[i] ^ ks[i] for n bytes, 16 at a time where possible. */
// @ts-ignore: decorator
@inline export function xorBytes(src: usize, dst: usize, ks: usize, n: usize): void {
  let i: usize = 0;
  for (; i + 16 <= n; i += 16) v128.store(dst + i, v128.xor(v128.load(src + i), v128.load(ks + i)));
  for (; i < n; i++) store<u8>(dst + i, load<u8>(src + i) ^ load<u8>(ks + i));
}

/**
 * HChaCha20: 32-byte subkey from key (32 bytes) and the first 16 bytes of an XChaCha nonce.
 * Scalar: it runs once per packet, on one block, so lanes would sit idle.
 */
export function hchacha20(key: usize, nonce16: usize, out: usize): void {
  let x0 = SIGMA0, x1 = SIGMA1, x2 = SIGMA2, x3 = SIGMA3;
  let x4 = load<u32>(key, 0), x5 = load<u32>(key, 4), x6 = load<u32>(key, 8), x7 = load<u32>(key, 12);
  let x8 = load<u32>(key, 16), x9 = load<u32>(key, 20), x10 = load<u32>(key, 24), x11 = load<u32>(key, 28);
  let x12 = load<u32>(nonce16, 0), x13 = load<u32>(nonce16, 4), x14 = load<u32>(nonce16, 8), x15 = load<u32>(nonce16, 12);
  for (let i = 0; i < 10; i++) {
    x0 += x4; x12 = rotl<u32>(x12 ^ x0, 16); x8 += x12; x4 = rotl<u32>(x4 ^ x8, 12);
    x0 += x4; x12 = rotl<u32>(x12 ^ x0, 8); x8 += x12; x4 = rotl<u32>(x4 ^ x8, 7);
    x1 += x5; x13 = rotl<u32>(x13 ^ x1, 16); x9 += x13; x5 = rotl<u32>(x5 ^ x9, 12);
    x1 += x5; x13 = rotl<u32>(x13 ^ x1, 8); x9 += x13; x5 = rotl<u32>(x5 ^ x9, 7);
    x2 += x6; x14 = rotl<u32>(x14 ^ x2, 16); x10 += x14; x6 = rotl<u32>(x6 ^ x10, 12);
    x2 += x6; x14 = rotl<u32>(x14 ^ x2, 8); x10 += x14; x6 = rotl<u32>(x6 ^ x10, 7);
    x3 += x7; x15 = rotl<u32>(x15 ^ x3, 16); x11 += x15; x7 = rotl<u32>(x7 ^ x11, 12);
    x3 += x7; x15 = rotl<u32>(x15 ^ x3, 8); x11 += x15; x7 = rotl<u32>(x7 ^ x11, 7);
    x0 += x5; x15 = rotl<u32>(x15 ^ x0, 16); x10 += x15; x5 = rotl<u32>(x5 ^ x10, 12);
    x0 += x5; x15 = rotl<u32>(x15 ^ x0, 8); x10 += x15; x5 = rotl<u32>(x5 ^ x10, 7);
    x1 += x6; x12 = rotl<u32>(x12 ^ x1, 16); x11 += x12; x6 = rotl<u32>(x6 ^ x11, 12);
    x1 += x6; x12 = rotl<u32>(x12 ^ x1, 8); x11 += x12; x6 = rotl<u32>(x6 ^ x11, 7);
    x2 += x7; x13 = rotl<u32>(x13 ^ x2, 16); x8 += x13; x7 = rotl<u32>(x7 ^ x8, 12);
    x2 += x7; x13 = rotl<u32>(x13 ^ x2, 8); x8 += x13; x7 = rotl<u32>(x7 ^ x8, 7);
    x3 += x4; x14 = rotl<u32>(x14 ^ x3, 16); x9 += x14; x4 = rotl<u32>(x4 ^ x9, 12);
    x3 += x4; x14 = rotl<u32>(x14 ^ x3, 8); x9 += x14; x4 = rotl<u32>(x4 ^ x9, 7);
  }
  store<u32>(out, x0, 0); store<u32>(out, x1, 4); store<u32>(out, x2, 8); store<u32>(out, x3, 12);
  store<u32>(out, x12, 16); store<u32>(out, x13, 20); store<u32>(out, x14, 24); store<u32>(out, x15, 28);
}

/** Plain ChaCha20 (RFC 8439 2.4): XORs keystream from block `counter` into src -> dst. */
export function chacha20Xor(key: usize, nonce: usize, counter: u32, src: usize, dst: usize, len: usize): void {
  if (len > 0) chachaXor(key, nonce, counter, src, dst, len, 0);
}
