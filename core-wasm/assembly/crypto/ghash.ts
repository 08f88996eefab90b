// GHASH (NIST SP 800-38D) with Shoup's 8-bit tables: 256 multiples of H per key (4 KiB in the
// key's context) and a 256-entry reduction table (fixed low memory, tables.ts). One table
// lookup per byte. The lookups are indexed by data bytes, so like the AES T-tables this is not
// constant time on hardware where cache timing can be observed (see aes.ts and the README).
import { LAST8_ADDR } from './tables';

/** Bytes of a key's table: 256 entries of (hi u64, lo u64). */
export const GHASH_TABLE_SIZE: usize = 4096;

function initReduction(): void {
  // Shifting Z right by 8 drops its low byte r; bit j of r stood for x^(127-j) and comes back
  // as x^128 * x^(7-j) = R >> (7-j), with R = 0xE1 << 120. Kept as the top 16 bits, pre-shifted.
  for (let r: u32 = 0; r < 256; r++) {
    let v: u64 = 0;
    for (let j: u32 = 0; j < 8; j++) if (r & (1 << j)) v ^= <u64>(0xe100 >> (7 - j));
    store<u64>(LAST8_ADDR + (<usize>r << 3), v << 48);
  }
}

initReduction();

/** Builds the table at `table` (GHASH_TABLE_SIZE bytes) from the 16-byte H. */
export function ghashInit(h: usize, table: usize): void {
  let vh = bswap<u64>(load<u64>(h, 0));
  let vl = bswap<u64>(load<u64>(h, 8));
  store<u64>(table, 0, 0);
  store<u64>(table, 0, 8);
  // Entry 0x80 is H (the byte's top bit is x^0); halving the index multiplies by x.
  for (let i = 128; i > 0; i >>= 1) {
    store<u64>(table + (<usize>i << 4), vh, 0);
    store<u64>(table + (<usize>i << 4), vl, 8);
    const t = (vl & 1) * 0xe1000000;
    vl = (vh << 63) | (vl >> 1);
    vh = (vh >> 1) ^ (t << 32);
  }
  for (let i = 2; i <= 128; i <<= 1) {
    const hh = load<u64>(table + (<usize>i << 4), 0);
    const hl = load<u64>(table + (<usize>i << 4), 8);
    for (let j = 1; j < i; j++) {
      store<u64>(table + (<usize>(i + j) << 4), hh ^ load<u64>(table + (<usize>j << 4), 0), 0);
      store<u64>(table + (<usize>(i + j) << 4), hl ^ load<u64>(table + (<usize>j << 4), 8), 8);
    }
  }
}

/** The running GHASH value (big-endian halves). */
let yh: u64 = 0;
let yl: u64 = 0;

export function ghashReset(): void {
  yh = 0;
  yl = 0;
}

// @ts-ignore: decorator
@inline function shift8(zh: u64, zl: u64): u64 {
  return (zh >> 8) ^ load<u64>(<usize>((<u32>zl & 0xff) << 3), LAST8_ADDR);
}

/** Absorbs `len` bytes (a multiple of 16): Y = (Y ^ X) * H per block. */
export function ghashBlocks(table: usize, m: usize, len: usize): void {
  let ah = yh, al = yl;
  const end = m + len;
  while (m < end) {
    const xh = ah ^ bswap<u64>(load<u64>(m, 0));
    const xl = al ^ bswap<u64>(load<u64>(m, 8));
    // Bytes from the least significant (x^127 side) up: 8 of xl, then 8 of xh.
    let e = table + (<usize>(<u32>xl & 0xff) << 4);
    let zh = load<u64>(e, 0);
    let zl = load<u64>(e, 8);
    let x = xl >> 8;
    for (let i = 1; i < 8; i++) {
      const nh = shift8(zh, zl);
      zl = (zh << 56) | (zl >> 8);
      e = table + (<usize>(<u32>x & 0xff) << 4);
      zh = nh ^ load<u64>(e, 0);
      zl ^= load<u64>(e, 8);
      x >>= 8;
    }
    x = xh;
    for (let i = 0; i < 8; i++) {
      const nh = shift8(zh, zl);
      zl = (zh << 56) | (zl >> 8);
      e = table + (<usize>(<u32>x & 0xff) << 4);
      zh = nh ^ load<u64>(e, 0);
      zl ^= load<u64>(e, 8);
      x >>= 8;
    }
    ah = zh;
    al = zl;
    m += 16;
  }
  yh = ah;
  yl = al;
}

const PAD: usize = memory.data(16, 16);

/** Absorbs `len` bytes zero-padded to a multiple of 16. */
export function ghashPadded(table: usize, m: usize, len: usize): void {
  const full = len & ~(<usize>15);
  if (full) ghashBlocks(table, m, full);
  const rest = len - full;
  if (rest) {
    v128.store(PAD, v128.splat<i32>(0));
    memory.copy(PAD, m + full, rest);
    ghashBlocks(table, PAD, 16);
  }
}

/** Absorbs the length block (bit lengths, big-endian) and writes Y to `out`. */
export function ghashFinish(table: usize, adLen: usize, ctLen: usize, out: usize): void {
  store<u64>(PAD, bswap<u64>(<u64>adLen << 3), 0);
  store<u64>(PAD, bswap<u64>(<u64>ctLen << 3), 8);
  ghashBlocks(table, PAD, 16);
  store<u64>(out, bswap<u64>(yh), 0);
  store<u64>(out, bswap<u64>(yl), 8);
  yh = 0;
  yl = 0;
}
