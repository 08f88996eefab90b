// Poly1305 (RFC 8439 2.5), 26-bit limbs with 64-bit products ("donna-32"). State lives in
// globals between calls and in locals inside the block loop. Constant time: no branches or
// addresses depend on the key or message.

const MASK26: u32 = 0x3ffffff;

let r0: u32 = 0, r1: u32 = 0, r2: u32 = 0, r3: u32 = 0, r4: u32 = 0;
let h0: u32 = 0, h1: u32 = 0, h2: u32 = 0, h3: u32 = 0, h4: u32 = 0;
let pad0: u32 = 0, pad1: u32 = 0, pad2: u32 = 0, pad3: u32 = 0;

/** 16 zero bytes used to pad AEAD segments and to hold a final partial block. */
export const POLY_BLOCK: usize = memory.data(16, 16);

export function polyInit(key: usize): void {
  r0 = load<u32>(key, 0) & 0x3ffffff;
  r1 = (load<u32>(key, 3) >> 2) & 0x3ffff03;
  r2 = (load<u32>(key, 6) >> 4) & 0x3ffc0ff;
  r3 = (load<u32>(key, 9) >> 6) & 0x3f03fff;
  r4 = (load<u32>(key, 12) >> 8) & 0x00fffff;
  h0 = 0; h1 = 0; h2 = 0; h3 = 0; h4 = 0;
  pad0 = load<u32>(key, 16);
  pad1 = load<u32>(key, 20);
  pad2 = load<u32>(key, 24);
  pad3 = load<u32>(key, 28);
}

/** Absorbs `len` bytes (a multiple of 16) as full blocks; hibit 1 << 24 for full blocks, 0 for a padded final block. */
export function polyBlocks(m: usize, len: usize, hibit: u32): void {
  const lr0 = <u64>r0, lr1 = <u64>r1, lr2 = <u64>r2, lr3 = <u64>r3, lr4 = <u64>r4;
  const s1 = lr1 * 5, s2 = lr2 * 5, s3 = lr3 * 5, s4 = lr4 * 5;
  let a0 = h0, a1 = h1, a2 = h2, a3 = h3, a4 = h4;
  const end = m + len;
  while (m < end) {
    a0 += load<u32>(m, 0) & MASK26;
    a1 += (load<u32>(m, 3) >> 2) & MASK26;
    a2 += (load<u32>(m, 6) >> 4) & MASK26;
    a3 += (load<u32>(m, 9) >> 6) & MASK26;
    a4 += (load<u32>(m, 12) >> 8) | hibit;
    const b0 = <u64>a0, b1 = <u64>a1, b2 = <u64>a2, b3 = <u64>a3, b4 = <u64>a4;
    let d0 = b0 * lr0 + b1 * s4 + b2 * s3 + b3 * s2 + b4 * s1;
    let d1 = b0 * lr1 + b1 * lr0 + b2 * s4 + b3 * s3 + b4 * s2;
    let d2 = b0 * lr2 + b1 * lr1 + b2 * lr0 + b3 * s4 + b4 * s3;
    let d3 = b0 * lr3 + b1 * lr2 + b2 * lr1 + b3 * lr0 + b4 * s4;
    let d4 = b0 * lr4 + b1 * lr3 + b2 * lr2 + b3 * lr1 + b4 * lr0;
    let c = d0 >> 26;
    a0 = <u32>d0 & MASK26;
    d1 += c; c = d1 >> 26; a1 = <u32>d1 & MASK26;
    d2 += c; c = d2 >> 26; a2 = <u32>d2 & MASK26;
    d3 += c; c = d3 >> 26; a3 = <u32>d3 & MASK26;
    d4 += c; c = d4 >> 26; a4 = <u32>d4 & MASK26;
    a0 += <u32>c * 5;
    a1 += a0 >> 26;
    a0 &= MASK26;
    m += 16;
  }
  h0 = a0; h1 = a1; h2 = a2; h3 = a3; h4 = a4;
}

/** Absorbs `len` bytes as a message tail: full blocks, then a final partial block with a 1 byte appended (plain Poly1305). */
export function polyTail(m: usize, len: usize): void {
  const full = len & ~(<usize>15);
  if (full) polyBlocks(m, full, 1 << 24);
  const rest = len - full;
  if (rest) {
    const b = POLY_BLOCK;
    v128.store(b, v128.splat<i32>(0));
    memory.copy(b, m + full, rest);
    store<u8>(b + rest, 1);
    polyBlocks(b, 16, 0);
    v128.store(b, v128.splat<i32>(0));
  }
}

/** Absorbs `len` bytes zero-padded to 16 (an AEAD segment, RFC 8439 2.8). */
export function polyPadded(m: usize, len: usize): void {
  const full = len & ~(<usize>15);
  if (full) polyBlocks(m, full, 1 << 24);
  const rest = len - full;
  if (rest) {
    const b = POLY_BLOCK;
    v128.store(b, v128.splat<i32>(0));
    memory.copy(b, m + full, rest);
    polyBlocks(b, 16, 1 << 24);
    v128.store(b, v128.splat<i32>(0));
  }
}

/** Absorbs the AEAD length block: le64(adLen) || le64(ctLen). */
export function polyLengths(adLen: usize, ctLen: usize): void {
  const b = POLY_BLOCK;
  store<u64>(b, <u64>adLen, 0);
  store<u64>(b, <u64>ctLen, 8);
  polyBlocks(b, 16, 1 << 24);
  v128.store(b, v128.splat<i32>(0));
}

/** Writes the 16-byte tag and wipes the state. */
export function polyFinish(out: usize): void {
  let a0 = h0, a1 = h1, a2 = h2, a3 = h3, a4 = h4;
  let c: u32;
  c = a1 >> 26; a1 &= MASK26;
  a2 += c; c = a2 >> 26; a2 &= MASK26;
  a3 += c; c = a3 >> 26; a3 &= MASK26;
  a4 += c; c = a4 >> 26; a4 &= MASK26;
  a0 += c * 5; c = a0 >> 26; a0 &= MASK26;
  a1 += c;

  // g = h + 5 - 2^130; keep g when it did not borrow (h >= p).
  let g0 = a0 + 5; c = g0 >> 26; g0 &= MASK26;
  let g1 = a1 + c; c = g1 >> 26; g1 &= MASK26;
  let g2 = a2 + c; c = g2 >> 26; g2 &= MASK26;
  let g3 = a3 + c; c = g3 >> 26; g3 &= MASK26;
  const g4 = a4 + c - (1 << 26);
  let mask = (g4 >> 31) - 1;
  const nmask = ~mask;
  a0 = (a0 & nmask) | (g0 & mask);
  a1 = (a1 & nmask) | (g1 & mask);
  a2 = (a2 & nmask) | (g2 & mask);
  a3 = (a3 & nmask) | (g3 & mask);
  a4 = (a4 & nmask) | (g4 & mask);

  const w0 = a0 | (a1 << 26);
  const w1 = (a1 >> 6) | (a2 << 20);
  const w2 = (a2 >> 12) | (a3 << 14);
  const w3 = (a3 >> 18) | (a4 << 8);
  let f = <u64>w0 + pad0;
  store<u32>(out, <u32>f, 0);
  f = <u64>w1 + pad1 + (f >> 32);
  store<u32>(out, <u32>f, 4);
  f = <u64>w2 + pad2 + (f >> 32);
  store<u32>(out, <u32>f, 8);
  f = <u64>w3 + pad3 + (f >> 32);
  store<u32>(out, <u32>f, 12);

  h0 = 0; h1 = 0; h2 = 0; h3 = 0; h4 = 0;
  r0 = 0; r1 = 0; r2 = 0; r3 = 0; r4 = 0;
  pad0 = 0; pad1 = 0; pad2 = 0; pad3 = 0;
  mask = 0;
}

/** Constant-time comparison of `len` bytes: 1 equal, 0 different. */
export function ctEqual(a: usize, b: usize, len: usize): i32 {
  let d: u32 = 0;
  for (let i: usize = 0; i < len; i++) d |= load<u8>(a + i) ^ load<u8>(b + i);
  return <i32>((d - 1) >> 31);
}

/** One-shot Poly1305 (RFC 8439 2.5) of msg[0..len) with a 32-byte one-time key. */
export function poly1305(key: usize, msg: usize, len: usize, out: usize): void {
  polyInit(key);
  polyTail(msg, len);
  polyFinish(out);
}
