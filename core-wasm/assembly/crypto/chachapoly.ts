// ChaCha20-Poly1305 (RFC 8439 2.8) and XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha 2.3,
// libsodium's crypto_aead_xchacha20poly1305_ietf). Open authenticates before it decrypts.
import { KEYSTREAM, chachaXor, hchacha20, xorBytes } from './chacha';
import { ctEqual, polyFinish, polyInit, polyLengths, polyPadded } from './poly1305';

const POLY_KEY: usize = memory.data(64, 16);
const SUBKEY: usize = memory.data(32, 16);
const NONCE12: usize = memory.data(16, 16);
const TAG: usize = memory.data(16, 16);

function mac(ad: usize, adLen: usize, ct: usize, ctLen: usize, out: usize): void {
  polyInit(POLY_KEY);
  polyPadded(ad, adLen);
  polyPadded(ct, ctLen);
  polyLengths(adLen, ctLen);
  polyFinish(out);
  v128.store(POLY_KEY, v128.splat<i32>(0));
  v128.store(POLY_KEY, v128.splat<i32>(0), 16);
  v128.store(POLY_KEY, v128.splat<i32>(0), 32);
  v128.store(POLY_KEY, v128.splat<i32>(0), 48);
}

export function chachaPolySeal(
  key: usize, nonce: usize, ad: usize, adLen: usize, src: usize, len: usize, dst: usize, tag: usize,
): void {
  chachaXor(key, nonce, 0, src, dst, len, POLY_KEY);
  mac(ad, adLen, dst, len, tag);
}

export function chachaPolyOpen(
  key: usize, nonce: usize, ad: usize, adLen: usize, src: usize, len: usize, dst: usize, tag: usize,
): i32 {
  // One four-block pass yields the Poly1305 key and the first 192 bytes of keystream, which
  // covers a whole voice packet; the MAC is checked before any byte is decrypted.
  chachaXor(key, nonce, 0, 0, 0, 0, POLY_KEY);
  mac(ad, adLen, src, len, TAG);
  const ok = ctEqual(TAG, tag, 16);
  v128.store(TAG, v128.splat<i32>(0));
  if (!ok) return 0;
  const head = len < 192 ? len : 192;
  xorBytes(src, dst, KEYSTREAM + 64, head);
  if (len > 192) chachaXor(key, nonce, 4, src + 192, dst + 192, len - 192, 0);
  return 1;
}

function xNonce(key: usize, nonce24: usize): void {
  hchacha20(key, nonce24, SUBKEY);
  store<u32>(NONCE12, 0, 0);
  store<u64>(NONCE12, load<u64>(nonce24, 16), 4);
}

function wipeSubkey(): void {
  v128.store(SUBKEY, v128.splat<i32>(0), 0);
  v128.store(SUBKEY, v128.splat<i32>(0), 16);
}

export function xchachaPolySeal(
  key: usize, nonce24: usize, ad: usize, adLen: usize, src: usize, len: usize, dst: usize, tag: usize,
): void {
  xNonce(key, nonce24);
  chachaPolySeal(SUBKEY, NONCE12, ad, adLen, src, len, dst, tag);
  wipeSubkey();
}

export function xchachaPolyOpen(
  key: usize, nonce24: usize, ad: usize, adLen: usize, src: usize, len: usize, dst: usize, tag: usize,
): i32 {
  xNonce(key, nonce24);
  const ok = chachaPolyOpen(SUBKEY, NONCE12, ad, adLen, src, len, dst, tag);
  wipeSubkey();
  return ok;
}
