// AES-128/256 encryption (FIPS 197) with 32-bit T-tables, generated at start-up. T-tables are
// fast in WASM but their lookups depend on secret data: cache-timing attacks against them are
// known on shared hardware. We accept that here (voice transport and media keys, short-lived,
// in a browser tab or a relay process); node:crypto (AES-NI) is the constant-time backend.
// Only the forward cipher is needed: GCM uses AES in counter mode both ways.

/** Te0..Te3 (4 x 256 u32), state words big-endian as in the reference implementation. */
export const TE: usize = memory.data(4096, 64);
export const SBOX: usize = memory.data(256, 64);

function xtime(x: u32): u32 {
  return ((x << 1) ^ ((x >> 7) * 0x1b)) & 0xff;
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
    store<u8>(SBOX + p, <u8>(x ^ 0x63));
  } while (p != 1);
  store<u8>(SBOX, 0x63);
  for (let i: u32 = 0; i < 256; i++) {
    const s = <u32>load<u8>(SBOX + i);
    const s2 = xtime(s);
    const s3 = s2 ^ s;
    const t = (s2 << 24) | (s << 16) | (s << 8) | s3;
    store<u32>(TE + (i << 2), t);
    store<u32>(TE + 1024 + (i << 2), rotr<u32>(t, 8));
    store<u32>(TE + 2048 + (i << 2), rotr<u32>(t, 16));
    store<u32>(TE + 3072 + (i << 2), rotr<u32>(t, 24));
  }
}

function rotl8(x: u32, n: u32): u32 {
  return ((x << n) | (x >> (8 - n))) & 0xff;
}

initTables();

// @ts-ignore: decorator
@inline function subWord(w: u32): u32 {
  return (
    (<u32>load<u8>(SBOX + (w >> 24)) << 24) |
    (<u32>load<u8>(SBOX + ((w >> 16) & 0xff)) << 16) |
    (<u32>load<u8>(SBOX + ((w >> 8) & 0xff)) << 8) |
    <u32>load<u8>(SBOX + (w & 0xff))
  );
}

/** Expands a 16- or 32-byte key into `rk` (4 * (rounds + 1) u32); returns the round count. */
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
  return rounds;
}

// @ts-ignore: decorator
@inline function te(table: usize, index: u32): u32 {
  return load<u32>(TE + table + (<usize>index << 2));
}

/**
 * Encrypts the block given as four big-endian words and stores it big-endian-correct at `out`
 * (i.e. as the 16 ciphertext bytes).
 */
// @ts-ignore: decorator
@inline export function aesEncryptWords(rk: usize, rounds: i32, w0: u32, w1: u32, w2: u32, w3: u32, out: usize): void {
  let s0 = w0 ^ load<u32>(rk, 0);
  let s1 = w1 ^ load<u32>(rk, 4);
  let s2 = w2 ^ load<u32>(rk, 8);
  let s3 = w3 ^ load<u32>(rk, 12);
  let k = rk + 16;
  for (let r = 1; r < rounds; r++) {
    const t0 = te(0, s0 >> 24) ^ te(1024, (s1 >> 16) & 0xff) ^ te(2048, (s2 >> 8) & 0xff) ^ te(3072, s3 & 0xff) ^ load<u32>(k, 0);
    const t1 = te(0, s1 >> 24) ^ te(1024, (s2 >> 16) & 0xff) ^ te(2048, (s3 >> 8) & 0xff) ^ te(3072, s0 & 0xff) ^ load<u32>(k, 4);
    const t2 = te(0, s2 >> 24) ^ te(1024, (s3 >> 16) & 0xff) ^ te(2048, (s0 >> 8) & 0xff) ^ te(3072, s1 & 0xff) ^ load<u32>(k, 8);
    const t3 = te(0, s3 >> 24) ^ te(1024, (s0 >> 16) & 0xff) ^ te(2048, (s1 >> 8) & 0xff) ^ te(3072, s2 & 0xff) ^ load<u32>(k, 12);
    s0 = t0; s1 = t1; s2 = t2; s3 = t3;
    k += 16;
  }
  const o0 = lastRound(s0, s1, s2, s3) ^ load<u32>(k, 0);
  const o1 = lastRound(s1, s2, s3, s0) ^ load<u32>(k, 4);
  const o2 = lastRound(s2, s3, s0, s1) ^ load<u32>(k, 8);
  const o3 = lastRound(s3, s0, s1, s2) ^ load<u32>(k, 12);
  store<u32>(out, bswap<u32>(o0), 0);
  store<u32>(out, bswap<u32>(o1), 4);
  store<u32>(out, bswap<u32>(o2), 8);
  store<u32>(out, bswap<u32>(o3), 12);
}

// @ts-ignore: decorator
@inline function lastRound(a: u32, b: u32, c: u32, d: u32): u32 {
  return (
    (<u32>load<u8>(SBOX + (a >> 24)) << 24) |
    (<u32>load<u8>(SBOX + ((b >> 16) & 0xff)) << 16) |
    (<u32>load<u8>(SBOX + ((c >> 8) & 0xff)) << 8) |
    <u32>load<u8>(SBOX + (d & 0xff))
  );
}

/** Encrypts one 16-byte block in -> out. */
export function aesEncryptBlock(rk: usize, rounds: i32, src: usize, dst: usize): void {
  aesEncryptWords(
    rk,
    rounds,
    bswap<u32>(load<u32>(src, 0)),
    bswap<u32>(load<u32>(src, 4)),
    bswap<u32>(load<u32>(src, 8)),
    bswap<u32>(load<u32>(src, 12)),
    dst,
  );
}
