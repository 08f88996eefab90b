// SHA-256 (FIPS 180-4), HMAC-SHA256 (RFC 2104) and HKDF-Expand (RFC 5869): what the DAVE key
// ratchet (MLS ExpandWithLabel, protocols.md 4.5) needs. Not on the per-packet path: a
// ratchet step runs once per 2^24 frames per sender.

const K: usize = memory.data<u32>([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
], 16);

const H: usize = memory.data(32, 16);
const W: usize = memory.data(256, 16);
const BUF: usize = memory.data(64, 16);
let bufLen: i32 = 0;
let total: u64 = 0;

function compress(block: usize): void {
  for (let i = 0; i < 16; i++) store<u32>(W + (<usize>i << 2), bswap<u32>(load<u32>(block + (<usize>i << 2))));
  for (let i = 16; i < 64; i++) {
    const w15 = load<u32>(W + (<usize>(i - 15) << 2));
    const w2 = load<u32>(W + (<usize>(i - 2) << 2));
    const s0 = rotr<u32>(w15, 7) ^ rotr<u32>(w15, 18) ^ (w15 >> 3);
    const s1 = rotr<u32>(w2, 17) ^ rotr<u32>(w2, 19) ^ (w2 >> 10);
    store<u32>(W + (<usize>i << 2), load<u32>(W + (<usize>(i - 16) << 2)) + s0 + load<u32>(W + (<usize>(i - 7) << 2)) + s1);
  }
  let a = load<u32>(H, 0), b = load<u32>(H, 4), c = load<u32>(H, 8), d = load<u32>(H, 12);
  let e = load<u32>(H, 16), f = load<u32>(H, 20), g = load<u32>(H, 24), h = load<u32>(H, 28);
  for (let i = 0; i < 64; i++) {
    const S1 = rotr<u32>(e, 6) ^ rotr<u32>(e, 11) ^ rotr<u32>(e, 25);
    const ch = (e & f) ^ (~e & g);
    const t1 = h + S1 + ch + load<u32>(K + (<usize>i << 2)) + load<u32>(W + (<usize>i << 2));
    const S0 = rotr<u32>(a, 2) ^ rotr<u32>(a, 13) ^ rotr<u32>(a, 22);
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = S0 + maj;
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  store<u32>(H, load<u32>(H, 0) + a, 0); store<u32>(H, load<u32>(H, 4) + b, 4);
  store<u32>(H, load<u32>(H, 8) + c, 8); store<u32>(H, load<u32>(H, 12) + d, 12);
  store<u32>(H, load<u32>(H, 16) + e, 16); store<u32>(H, load<u32>(H, 20) + f, 20);
  store<u32>(H, load<u32>(H, 24) + g, 24); store<u32>(H, load<u32>(H, 28) + h, 28);
}

function init(): void {
  store<u32>(H, 0x6a09e667, 0); store<u32>(H, 0xbb67ae85, 4); store<u32>(H, 0x3c6ef372, 8); store<u32>(H, 0xa54ff53a, 12);
  store<u32>(H, 0x510e527f, 16); store<u32>(H, 0x9b05688c, 20); store<u32>(H, 0x1f83d9ab, 24); store<u32>(H, 0x5be0cd19, 28);
  bufLen = 0;
  total = 0;
}

function update(p: usize, len: usize): void {
  total += <u64>len;
  while (len > 0) {
    if (bufLen == 0 && len >= 64) {
      compress(p);
      p += 64;
      len -= 64;
      continue;
    }
    const take = min<usize>(len, <usize>(64 - bufLen));
    memory.copy(BUF + <usize>bufLen, p, take);
    bufLen += <i32>take;
    p += take;
    len -= take;
    if (bufLen == 64) {
      compress(BUF);
      bufLen = 0;
    }
  }
}

function finish(out: usize): void {
  const bits = total << 3;
  store<u8>(BUF + <usize>bufLen, 0x80);
  bufLen++;
  if (bufLen > 56) {
    memory.fill(BUF + <usize>bufLen, 0, <usize>(64 - bufLen));
    compress(BUF);
    bufLen = 0;
  }
  memory.fill(BUF + <usize>bufLen, 0, <usize>(56 - bufLen));
  store<u64>(BUF, bswap<u64>(bits), 56);
  compress(BUF);
  for (let i = 0; i < 8; i++) store<u32>(out + (<usize>i << 2), bswap<u32>(load<u32>(H + (<usize>i << 2))));
  memory.fill(BUF, 0, 64);
  memory.fill(W, 0, 256);
  memory.fill(H, 0, 32);
}

export function sha256(src: usize, len: usize, out: usize): void {
  init();
  update(src, len);
  finish(out);
}

const PAD: usize = memory.data(64, 16);
const INNER: usize = memory.data(32, 16);

/** HMAC-SHA256; the key may be longer than a block. */
export function hmacSha256(key: usize, keyLen: usize, msg: usize, msgLen: usize, out: usize): void {
  const k = memory.data(64, 16);
  memory.fill(k, 0, 64);
  if (keyLen > 64) sha256(key, keyLen, k);
  else memory.copy(k, key, keyLen);
  for (let i: usize = 0; i < 64; i++) store<u8>(PAD + i, load<u8>(k + i) ^ 0x36);
  init();
  update(PAD, 64);
  update(msg, msgLen);
  finish(INNER);
  for (let i: usize = 0; i < 64; i++) store<u8>(PAD + i, load<u8>(k + i) ^ 0x5c);
  init();
  update(PAD, 64);
  update(INNER, 32);
  finish(out);
  memory.fill(k, 0, 64);
  memory.fill(PAD, 0, 64);
  memory.fill(INNER, 0, 32);
}

const T: usize = memory.data(32, 16);
const CTR: usize = memory.data(16, 16);

/** HKDF-Expand(PRK, info, L) with SHA-256; L <= 255 * 32. Returns 1, or 0 if L is too large. */
export function hkdfExpandSha256(prk: usize, prkLen: usize, info: usize, infoLen: usize, out: usize, outLen: usize): i32 {
  if (outLen > 255 * 32) return 0;
  let done: usize = 0;
  let tLen: usize = 0;
  let n: u8 = 1;
  const k = memory.data(64, 16);
  // HMAC's key block, built once: PRK fits (HKDF's PRK is a hash output or a secret <= 64 bytes
  // in MLS); longer keys are hashed first as HMAC requires.
  memory.fill(k, 0, 64);
  if (prkLen > 64) sha256(prk, prkLen, k);
  else memory.copy(k, prk, prkLen);
  while (done < outLen) {
    // T(n) = HMAC(PRK, T(n-1) || info || n)
    for (let i: usize = 0; i < 64; i++) store<u8>(PAD + i, load<u8>(k + i) ^ 0x36);
    init();
    update(PAD, 64);
    update(T, tLen);
    update(info, infoLen);
    store<u8>(CTR, n);
    update(CTR, 1);
    finish(INNER);
    for (let i: usize = 0; i < 64; i++) store<u8>(PAD + i, load<u8>(k + i) ^ 0x5c);
    init();
    update(PAD, 64);
    update(INNER, 32);
    finish(T);
    tLen = 32;
    const take = min<usize>(32, outLen - done);
    memory.copy(out + done, T, take);
    done += take;
    n++;
  }
  memory.fill(k, 0, 64);
  memory.fill(T, 0, 32);
  memory.fill(PAD, 0, 64);
  memory.fill(INNER, 0, 32);
  return 1;
}
