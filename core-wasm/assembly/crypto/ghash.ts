// GHASH (NIST SP 800-38D) with Shoup's 4-bit tables: 16 multiples of H per key (256 bytes) and
// a 16-entry reduction table. Table lookups are indexed by data nibbles, so this is not
// strictly constant time (same caveat as the AES T-tables, see aes.ts); the tables are small
// (4 cache lines of H multiples) which limits what leaks.

/** Reduction constants for the 4 bits shifted out, already placed in the top 16 bits. */
const LAST4: usize = memory.data<u64>([
  0x0000, 0x1c20, 0x3840, 0x2460, 0x7080, 0x6ca0, 0x48c0, 0x54e0,
  0xe100, 0xfd20, 0xd940, 0xc560, 0x9180, 0x8da0, 0xa9c0, 0xb5e0,
], 16);

/** Builds the table at `table` (16 x (hi u64, lo u64) = 256 bytes) from the 16-byte H. */
export function ghashInit(h: usize, table: usize): void {
  let vh = bswap<u64>(load<u64>(h, 0));
  let vl = bswap<u64>(load<u64>(h, 8));
  store<u64>(table, 0, 0);
  store<u64>(table, 0, 8);
  store<u64>(table + 8 * 16, vh, 0);
  store<u64>(table + 8 * 16, vl, 8);
  for (let i = 4; i > 0; i >>= 1) {
    const t = (vl & 1) * 0xe1000000;
    vl = (vh << 63) | (vl >> 1);
    vh = (vh >> 1) ^ (t << 32);
    store<u64>(table + (<usize>i << 4), vh, 0);
    store<u64>(table + (<usize>i << 4), vl, 8);
  }
  for (let i = 2; i <= 8; i <<= 1) {
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

/** Absorbs `len` bytes (a multiple of 16): Y = (Y ^ X) * H per block. */
export function ghashBlocks(table: usize, m: usize, len: usize): void {
  let ah = yh, al = yl;
  const end = m + len;
  while (m < end) {
    const xh = ah ^ bswap<u64>(load<u64>(m, 0));
    const xl = al ^ bswap<u64>(load<u64>(m, 8));
    // Nibbles from the least significant (x^127 side) up: 16 of xl, then 16 of xh.
    let e = table + (<usize>(xl & 0xf) << 4);
    let zh = load<u64>(e, 0);
    let zl = load<u64>(e, 8);
    let x = xl >> 4;
    for (let i = 1; i < 16; i++) {
      const rem = zl & 0xf;
      zl = (zh << 60) | (zl >> 4);
      zh = (zh >> 4) ^ (load<u64>(LAST4 + (<usize>rem << 3)) << 48);
      e = table + (<usize>(x & 0xf) << 4);
      zh ^= load<u64>(e, 0);
      zl ^= load<u64>(e, 8);
      x >>= 4;
    }
    x = xh;
    for (let i = 0; i < 16; i++) {
      const rem = zl & 0xf;
      zl = (zh << 60) | (zl >> 4);
      zh = (zh >> 4) ^ (load<u64>(LAST4 + (<usize>rem << 3)) << 48);
      e = table + (<usize>(x & 0xf) << 4);
      zh ^= load<u64>(e, 0);
      zl ^= load<u64>(e, 8);
      x >>= 4;
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
