// The voice transport AEAD modes `aead_aes256_gcm_rtpsize` and `aead_xchacha20_poly1305_rtpsize`
// (protocols.md 3.7), byte-exact:
//   [ RTP header, 12 + 4*CC (+4 if X) bytes ]  additional data, not encrypted
//   [ ciphertext: extension body (if X) + media frame ]
//   [ 16-byte tag ]
//   [ 4-byte nonce counter, big-endian ]
// The nonce is that counter big-endian in bytes 0..3 of an otherwise zero 12-byte (AES) or
// 24-byte (XChaCha) nonce. Both functions work in place in the caller's packet buffer.
import { AeadAlgorithm, CoreError } from '../generated/enums';
import { aeadAlgorithm, aeadOpen, aeadSeal } from '../crypto/aead';
import { RESULT } from '../result';
import { rtpsizeHeaderLength } from './rtp';

/** Tag plus nonce suffix. */
export const TRANSPORT_OVERHEAD: i32 = 20;
/** The largest packet we accept or produce (a UDP datagram's limit, and lengths fit u16). */
export const MAX_PACKET: i32 = 65535;

const NONCE: usize = memory.data(24, 16);

/**
 * Encrypts the packet pkt[0..len) (header + extension body + media) in place, appending tag
 * and nonce; `cap` is the buffer's size. Returns the new length, or a negative CoreError.
 */
export function transportSeal(ctx: usize, pkt: usize, len: i32, cap: i32, nonce: u32): i32 {
  if (len > MAX_PACKET - TRANSPORT_OVERHEAD) return CoreError.TooLong;
  const aadLen = rtpsizeHeaderLength(pkt, len);
  if (aadLen < 0) return aadLen;
  const total = len + TRANSPORT_OVERHEAD;
  if (total > cap) return CoreError.NoRoom;
  const algorithm = aeadAlgorithm(ctx);
  if (algorithm != AeadAlgorithm.Aes256Gcm && algorithm != AeadAlgorithm.XChaCha20Poly1305) return CoreError.BadArgument;
  v128.store(NONCE, v128.splat<i32>(0));
  store<u64>(NONCE, 0, 16);
  store<u32>(NONCE, bswap<u32>(nonce));
  const body = pkt + <usize>aadLen;
  const bodyLen = <usize>(len - aadLen);
  aeadSeal(ctx, NONCE, pkt, <usize>aadLen, body, bodyLen, body, body + bodyLen);
  store<u32>(pkt + <usize>(len + 16), bswap<u32>(nonce));
  return total;
}

/**
 * Authenticates and decrypts pkt[0..len) in place. Returns the media frame's length and puts
 * its offset in RESULT[0] and the packet's nonce counter in RESULT[1]; or a negative
 * CoreError (AuthFailed leaves the buffer as it was). Strips the extension body (X) and RTP
 * padding (P) after decryption.
 */
export function transportOpen(ctx: usize, pkt: usize, len: i32): i32 {
  if (len > MAX_PACKET) return CoreError.TooLong;
  if (len < 12 + TRANSPORT_OVERHEAD) return CoreError.TooShort;
  const aadLen = rtpsizeHeaderLength(pkt, len);
  if (aadLen < 0) return aadLen;
  if (len < aadLen + TRANSPORT_OVERHEAD) return CoreError.TooShort;
  const algorithm = aeadAlgorithm(ctx);
  if (algorithm != AeadAlgorithm.Aes256Gcm && algorithm != AeadAlgorithm.XChaCha20Poly1305) return CoreError.BadArgument;
  const bodyLen = len - aadLen - TRANSPORT_OVERHEAD;
  const body = pkt + <usize>aadLen;
  const nonceBits = load<u32>(pkt + <usize>(len - 4));
  v128.store(NONCE, v128.splat<i32>(0));
  store<u64>(NONCE, 0, 16);
  store<u32>(NONCE, nonceBits);
  if (!aeadOpen(ctx, NONCE, pkt, <usize>aadLen, body, <usize>bodyLen, body, body + <usize>bodyLen)) return CoreError.AuthFailed;

  let start = aadLen;
  let end = aadLen + bodyLen;
  const b0 = <i32>load<u8>(pkt);
  if (b0 & 0x10) {
    const extBytes = <i32>bswap<u16>(load<u16>(pkt + <usize>(aadLen - 2))) << 2;
    if (extBytes > bodyLen) return CoreError.BadExtension;
    start += extBytes;
  }
  if (b0 & 0x20) {
    const pad = end > start ? <i32>load<u8>(pkt + <usize>(end - 1)) : 0;
    if (pad == 0 || pad > end - start) return CoreError.BadPadding;
    end -= pad;
  }
  store<i32>(RESULT, start, 0);
  store<u32>(RESULT, bswap<u32>(nonceBits), 4);
  return end - start;
}
