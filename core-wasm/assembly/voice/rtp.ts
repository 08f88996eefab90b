// RTP fixed header (RFC 3550 5.1) as voice uses it (protocols.md 3.6): build, parse, and
// wrap-around arithmetic for the 16-bit sequence and 32-bit timestamp.
import { CoreError } from '../generated/enums';
import { RESULT } from '../result';

export const RTP_MIN_HEADER: i32 = 12;

/** Writes a 12-byte header (V=2, no padding, extension or CSRC); returns 12, or NoRoom. */
export function rtpWriteHeader(dst: usize, cap: i32, marker: i32, payloadType: i32, seq: i32, timestamp: u32, ssrc: u32): i32 {
  return rtpWriteHeaderFull(dst, cap, marker, payloadType, seq, timestamp, ssrc, 0, 0, -1, 0);
}

/**
 * Writes a header with `csrcCount` CSRCs (u32 values at `csrcs`) and, when extProfile >= 0, the
 * extension preamble (profile, length in words); the extension body (extWords * 4 bytes) is
 * left for the caller right after. Returns the offset of the extension body (or of the payload
 * when there is none), or NoRoom / BadArgument.
 */
export function rtpWriteHeaderFull(
  dst: usize, cap: i32, marker: i32, payloadType: i32, seq: i32, timestamp: u32, ssrc: u32,
  csrcs: usize, csrcCount: i32, extProfile: i32, extWords: i32,
): i32 {
  if (csrcCount < 0 || csrcCount > 15 || extWords < 0 || extWords > 0xffff || extProfile > 0xffff) return CoreError.BadArgument;
  const hasExt = extProfile >= 0;
  const n = RTP_MIN_HEADER + (csrcCount << 2) + (hasExt ? 4 : 0);
  if (cap < n + (hasExt ? extWords << 2 : 0)) return CoreError.NoRoom;
  store<u8>(dst, <u8>(0x80 | (hasExt ? 0x10 : 0) | csrcCount));
  store<u8>(dst + 1, <u8>(((marker & 1) << 7) | (payloadType & 0x7f)));
  store<u16>(dst + 2, bswap<u16>(<u16>seq));
  store<u32>(dst + 4, bswap<u32>(timestamp));
  store<u32>(dst + 8, bswap<u32>(ssrc));
  for (let i = 0; i < csrcCount; i++) {
    store<u32>(dst + 12 + (<usize>i << 2), bswap<u32>(load<u32>(csrcs + (<usize>i << 2))));
  }
  if (hasExt) {
    const at = dst + <usize>(n - 4);
    store<u16>(at, bswap<u16>(<u16>extProfile));
    store<u16>(at + 2, bswap<u16>(<u16>extWords));
  }
  return n;
}

/**
 * Appends `count` bytes of RTP padding (1..255; the last byte holds the count) to the packet
 * pkt[0..len) and sets the P bit. Returns the new length, or NoRoom / BadArgument.
 */
export function rtpAddPadding(pkt: usize, len: i32, cap: i32, count: i32): i32 {
  if (count < 1 || count > 255 || len < RTP_MIN_HEADER) return CoreError.BadArgument;
  if (len + count > cap) return CoreError.NoRoom;
  memory.fill(pkt + <usize>len, 0, <usize>(count - 1));
  store<u8>(pkt + <usize>(len + count - 1), <u8>count);
  store<u8>(pkt, load<u8>(pkt) | 0x20);
  return len + count;
}

/**
 * Length of the header that stays unencrypted in the `*_rtpsize` modes: 12 + 4 * CC, plus the
 * 4-byte extension preamble when X is set. Negative CoreError if `len` cannot hold it.
 */
export function rtpsizeHeaderLength(pkt: usize, len: i32): i32 {
  if (len < RTP_MIN_HEADER) return CoreError.TooShort;
  const b0 = <i32>load<u8>(pkt);
  if (b0 >> 6 != 2) return CoreError.BadVersion;
  let n = RTP_MIN_HEADER + ((b0 & 0x0f) << 2);
  if (b0 & 0x10) n += 4;
  return n <= len ? n : CoreError.TooShort;
}

/**
 * Parses the header at pkt[0..len). Returns the rtpsize header length (see above) or a
 * negative CoreError. Fields go to RESULT as i32s: [0] flags byte 0, [1] marker, [2] payload
 * type, [3] sequence, [4] timestamp (u32 bits), [5] SSRC (u32 bits), [6] CSRC count,
 * [7] extension profile (or -1), [8] extension length in 32-bit words (or 0).
 * The extension body may be encrypted (rtpsize modes), so it is not read here.
 */
export function rtpParse(pkt: usize, len: i32): i32 {
  const n = rtpsizeHeaderLength(pkt, len);
  if (n < 0) return n;
  const b0 = <i32>load<u8>(pkt);
  const b1 = <i32>load<u8>(pkt + 1);
  store<i32>(RESULT, b0, 0);
  store<i32>(RESULT, b1 >> 7, 4);
  store<i32>(RESULT, b1 & 0x7f, 8);
  store<i32>(RESULT, <i32>bswap<u16>(load<u16>(pkt + 2)), 12);
  store<u32>(RESULT, bswap<u32>(load<u32>(pkt + 4)), 16);
  store<u32>(RESULT, bswap<u32>(load<u32>(pkt + 8)), 20);
  store<i32>(RESULT, b0 & 0x0f, 24);
  if (b0 & 0x10) {
    const at = pkt + <usize>(n - 4);
    store<i32>(RESULT, <i32>bswap<u16>(load<u16>(at)), 28);
    store<i32>(RESULT, <i32>bswap<u16>(load<u16>(at + 2)), 32);
  } else {
    store<i32>(RESULT, -1, 28);
    store<i32>(RESULT, 0, 32);
  }
  return n;
}

/** Signed distance b - a between 16-bit sequence numbers, across the wrap (-32768..32767). */
export function seqDelta(a: i32, b: i32): i32 {
  return <i32>(<i16>(b - a));
}

/** Signed distance b - a between 32-bit timestamps, across the wrap. */
export function timestampDelta(a: u32, b: u32): i32 {
  return <i32>(b - a);
}
