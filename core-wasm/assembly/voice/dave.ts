// The DAVE end-to-end media frame cipher (protocols.md 4.4): AES-128-GCM, 8-byte truncated
// tag, 12-byte nonce = 8 zero bytes + the 32-bit truncated nonce little-endian, and the
// supplemental trailer
//   [tag 8][ULEB128 nonce][ULEB128 (offset, length) unencrypted ranges][size u8][0xFA 0xFA]
// Unencrypted ranges (video) stay in place and form the additional data; Opus frames have
// none and empty additional data. Key choice by generation and replay checks are the
// wrapper's (src/dave); this file is the byte work.
import { CoreError } from '../generated/enums';
import { aeadOpenTruncated, aeadSealTruncated } from '../crypto/aead';
import { RESULT } from '../result';

export const DAVE_TAG_BYTES: i32 = 8;
/** Tag + size byte + marker; a real frame also has at least one nonce byte. */
export const DAVE_MIN_SUPPLEMENTAL: i32 = 11;
const MARKER: u16 = 0xfafa;
const MAX_RANGES: i32 = 64;

const NONCE: usize = memory.data(16, 16);
const TAG: usize = memory.data(16, 16);
/** Parsed ranges: offset, length pairs (u32). */
const RANGES: usize = memory.data(MAX_RANGES * 8, 16);

// Gather buffers for frames with unencrypted ranges; grown on demand, never per Opus frame.
let gatherPtr: usize = 0;
let gatherCap: i32 = 0;

function gather(size: i32): usize {
  if (size > gatherCap) {
    const cap = max<i32>(size, 4096);
    gatherPtr = gatherPtr == 0 ? heap.alloc(<usize>cap * 2) : heap.realloc(gatherPtr, <usize>cap * 2);
    gatherCap = cap;
  }
  return gatherPtr;
}

function ulebLength(v: u32): i32 {
  let n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

function writeUleb(p: usize, v: u32): usize {
  while (v >= 0x80) {
    store<u8>(p++, <u8>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  store<u8>(p++, <u8>v);
  return p;
}

let ulebPos: usize = 0;

/** Reads a ULEB128 u32 at ulebPos (< end); -1 when truncated or larger than u32. */
function readUleb(end: usize): i64 {
  let v: u64 = 0;
  let shift: u32 = 0;
  while (true) {
    if (ulebPos >= end || shift > 28) return -1;
    const b = <u64>load<u8>(ulebPos++);
    v |= (b & 0x7f) << shift;
    if (!(b & 0x80)) break;
    shift += 7;
  }
  return v > 0xffffffff ? -1 : <i64>v;
}

function isSilence(p: usize, len: i32): bool {
  return len == 3 && load<u8>(p) == 0xf8 && load<u8>(p + 1) == 0xff && load<u8>(p + 2) == 0xfe;
}

function setNonce(truncated: u32): void {
  store<u64>(NONCE, 0, 0);
  store<u32>(NONCE, truncated, 8);
}

/** Checks ranges (pairs of u32 at `ranges`) are ascending, non-overlapping and inside `len`. */
function rangesValid(ranges: usize, count: i32, len: i32): bool {
  let pos: u64 = 0;
  for (let i = 0; i < count; i++) {
    const off = <u64>load<u32>(ranges + (<usize>i << 3));
    const n = <u64>load<u32>(ranges + (<usize>i << 3), 4);
    if (off < pos || off + n > <u64>len) return false;
    pos = off + n;
  }
  return true;
}

/**
 * Encrypts the media frame src[0..len) into dst (dst == src allowed) and appends the
 * trailer; `cap` is dst's size. Returns the output length or a negative CoreError. The silence
 * frame F8 FF FE passes through as is. `ranges` holds `rangeCount` (offset, length) u32 pairs.
 */
export function daveEncrypt(ctx: usize, src: usize, len: i32, dst: usize, cap: i32, nonce: u32, ranges: usize, rangeCount: i32): i32 {
  if (len < 0 || rangeCount < 0 || rangeCount > MAX_RANGES) return CoreError.BadArgument;
  if (isSilence(src, len)) {
    if (cap < 3) return CoreError.NoRoom;
    memory.copy(dst, src, 3);
    return 3;
  }
  if (!rangesValid(ranges, rangeCount, len)) return CoreError.BadArgument;
  let supplemental = DAVE_TAG_BYTES + ulebLength(nonce) + 3;
  for (let i = 0; i < rangeCount; i++) {
    supplemental += ulebLength(load<u32>(ranges + (<usize>i << 3))) + ulebLength(load<u32>(ranges + (<usize>i << 3), 4));
  }
  if (supplemental > 255) return CoreError.BadArgument;
  if (len + supplemental > cap) return CoreError.NoRoom;

  setNonce(nonce);
  const tagAt = dst + <usize>len;
  if (rangeCount == 0) {
    aeadSealTruncated(ctx, NONCE, 0, 0, src, <usize>len, dst, tagAt, DAVE_TAG_BYTES);
  } else {
    const g = gather(len);
    const clear = g + <usize>gatherCap;
    let clearLen: usize = 0, encLen: usize = 0, pos: usize = 0;
    for (let i = 0; i <= rangeCount; i++) {
      const off = i < rangeCount ? <usize>load<u32>(ranges + (<usize>i << 3)) : <usize>len;
      const n = i < rangeCount ? <usize>load<u32>(ranges + (<usize>i << 3), 4) : 0;
      memory.copy(g + encLen, src + pos, off - pos);
      encLen += off - pos;
      memory.copy(clear + clearLen, src + off, n);
      clearLen += n;
      pos = off + n;
    }
    aeadSealTruncated(ctx, NONCE, clear, clearLen, g, encLen, g, tagAt, DAVE_TAG_BYTES);
    scatter(g, src, dst, ranges, rangeCount, len);
  }
  let p = writeUleb(tagAt + <usize>DAVE_TAG_BYTES, nonce);
  for (let i = 0; i < rangeCount; i++) {
    p = writeUleb(p, load<u32>(ranges + (<usize>i << 3)));
    p = writeUleb(p, load<u32>(ranges + (<usize>i << 3), 4));
  }
  store<u8>(p, <u8>supplemental);
  store<u16>(p + 1, MARKER);
  return len + supplemental;
}

/** Writes the gathered (en|de)crypted bytes back around the unencrypted ranges. */
function scatter(g: usize, src: usize, dst: usize, ranges: usize, count: i32, len: i32): void {
  let pos: usize = 0, at: usize = 0;
  for (let i = 0; i <= count; i++) {
    const off = i < count ? <usize>load<u32>(ranges + (<usize>i << 3)) : <usize>len;
    const n = i < count ? <usize>load<u32>(ranges + (<usize>i << 3), 4) : 0;
    memory.copy(dst + pos, g + at, off - pos);
    at += off - pos;
    if (dst != src) memory.copy(dst + off, src + off, n);
    pos = off + n;
  }
}

/**
 * Parses the trailer of src[0..len). Returns 0 and fills RESULT ([0] truncated nonce (u32
 * bits), [1] frame length, [2] range count; ranges in RANGES), 1 for the pass-through silence
 * frame, or a negative CoreError (BadFrame, TooShort).
 */
export function daveParse(src: usize, len: i32): i32 {
  if (isSilence(src, len)) {
    store<u32>(RESULT, 0, 0);
    store<i32>(RESULT, 3, 4);
    store<i32>(RESULT, 0, 8);
    return 1;
  }
  if (len < DAVE_MIN_SUPPLEMENTAL + 1) return CoreError.TooShort;
  if (load<u16>(src + <usize>(len - 2)) != MARKER) return CoreError.BadFrame;
  const size = <i32>load<u8>(src + <usize>(len - 3));
  if (size < DAVE_MIN_SUPPLEMENTAL + 1 || size > len) return CoreError.BadFrame;
  const frameLen = len - size;
  const end = src + <usize>(len - 3);
  ulebPos = src + <usize>(frameLen + DAVE_TAG_BYTES);
  const nonce = readUleb(end);
  if (nonce < 0) return CoreError.BadFrame;
  let count = 0;
  let pos: i64 = 0;
  while (ulebPos < end) {
    if (count == MAX_RANGES) return CoreError.BadFrame;
    const off = readUleb(end);
    if (off < 0) return CoreError.BadFrame;
    const n = readUleb(end);
    if (n < 0) return CoreError.BadFrame;
    if (off < pos || off + n > <i64>frameLen) return CoreError.BadFrame;
    store<u32>(RANGES + (<usize>count << 3), <u32>off);
    store<u32>(RANGES + (<usize>count << 3), <u32>n, 4);
    pos = off + n;
    count++;
  }
  store<u32>(RESULT, <u32>nonce, 0);
  store<i32>(RESULT, frameLen, 4);
  store<i32>(RESULT, count, 8);
  return 0;
}

/**
 * Authenticates and decrypts the frame src[0..len) into dst (dst == src allowed). Returns
 * the media frame's length or a negative CoreError; RESULT[0] holds the truncated nonce.
 * The silence frame passes through.
 */
export function daveDecrypt(ctx: usize, src: usize, len: i32, dst: usize, cap: i32): i32 {
  const parsed = daveParse(src, len);
  if (parsed < 0) return parsed;
  const frameLen = load<i32>(RESULT, 4);
  if (frameLen > cap) return CoreError.NoRoom;
  if (parsed == 1) {
    memory.copy(dst, src, 3);
    return 3;
  }
  const nonce = load<u32>(RESULT, 0);
  const count = load<i32>(RESULT, 8);
  setNonce(nonce);
  // Copy the tag out first: dst may overlap the trailer.
  store<u64>(TAG, load<u64>(src + <usize>frameLen));
  if (count == 0) {
    if (!aeadOpenTruncated(ctx, NONCE, 0, 0, src, <usize>frameLen, dst, TAG, DAVE_TAG_BYTES)) return CoreError.AuthFailed;
    return frameLen;
  }
  const g = gather(frameLen);
  const clear = g + <usize>gatherCap;
  let clearLen: usize = 0, encLen: usize = 0, pos: usize = 0;
  for (let i = 0; i <= count; i++) {
    const off = i < count ? <usize>load<u32>(RANGES + (<usize>i << 3)) : <usize>frameLen;
    const n = i < count ? <usize>load<u32>(RANGES + (<usize>i << 3), 4) : 0;
    memory.copy(g + encLen, src + pos, off - pos);
    encLen += off - pos;
    memory.copy(clear + clearLen, src + off, n);
    clearLen += n;
    pos = off + n;
  }
  if (!aeadOpenTruncated(ctx, NONCE, clear, clearLen, g, encLen, g, TAG, DAVE_TAG_BYTES)) return CoreError.AuthFailed;
  scatter(g, src, dst, RANGES, count, frameLen);
  store<u32>(RESULT, nonce, 0);
  return frameLen;
}

export function daveRangesAddress(): usize {
  return RANGES;
}
