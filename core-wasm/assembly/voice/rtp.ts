// RTP fixed header (RFC 3550 5.1) as voice uses it (protocols.md 3.6): build, parse, and
// wrap-around arithmetic for the 16-bit sequence and 32-bit timestamp.
import { CoreError } from '../generated/enums';
import { RESULT } from '../result';

export const RTP_MIN_HEADER: i32 = 12;

/** Writes a 12-byte header (V=2, no padding, extension or CSRC); returns 12, or NoRoom. */
export function rtpWriteHeader(dst: usize, cap: i32, marker: i32, payloadType: i32, seq: i32, timestamp: u32, ssrc: u32): i32 {
  if (cap < RTP_MIN_HEADER) return CoreError.NoRoom;
  store<u8>(dst, 0x80);
  store<u8>(dst + 1, <u8>(((marker & 1) << 7) | (payloadType & 0x7f)));
  store<u16>(dst + 2, bswap<u16>(<u16>seq));
  store<u32>(dst + 4, bswap<u32>(timestamp));
  store<u32>(dst + 8, bswap<u32>(ssrc));
  return RTP_MIN_HEADER;
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
