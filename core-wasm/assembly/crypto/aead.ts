// AEAD contexts behind one interface: a context is unmanaged memory holding the algorithm and
// the expanded key (AES round keys and GHASH table, or the ChaCha key), created once per key.
import { AeadAlgorithm } from '../generated/enums';
import { chachaPolyOpen, chachaPolySeal, xchachaPolyOpen, xchachaPolySeal } from './chachapoly';
import { GCM_CTX_SIZE, gcmInit, gcmOpen, gcmSeal } from './gcm';

const HEADER: usize = 16;
export const AEAD_CTX_SIZE: usize = HEADER + GCM_CTX_SIZE;

/** A new context for `algorithm` with the key at `key` (32 bytes; 16 for AES-128); 0 for an unknown algorithm. */
export function aeadCreate(algorithm: i32, key: usize): usize {
  if (algorithm < AeadAlgorithm.Aes256Gcm || algorithm > AeadAlgorithm.Aes128Gcm) return 0;
  const ctx = heap.alloc(AEAD_CTX_SIZE);
  memory.fill(ctx, 0, AEAD_CTX_SIZE);
  store<i32>(ctx, algorithm);
  if (algorithm == AeadAlgorithm.Aes256Gcm) gcmInit(ctx + HEADER, key, 32);
  else if (algorithm == AeadAlgorithm.Aes128Gcm) gcmInit(ctx + HEADER, key, 16);
  else memory.copy(ctx + HEADER, key, 32);
  return ctx;
}

/** Wipes and frees a context. */
export function aeadDestroy(ctx: usize): void {
  if (ctx == 0) return;
  memory.fill(ctx, 0, AEAD_CTX_SIZE);
  heap.free(ctx);
}

export function aeadAlgorithm(ctx: usize): i32 {
  return load<i32>(ctx);
}

/** Nonce bytes the algorithm takes. */
export function aeadNonceLength(algorithm: i32): i32 {
  return algorithm == AeadAlgorithm.XChaCha20Poly1305 ? 24 : 12;
}

/** Encrypts src -> dst (src == dst allowed) and writes the 16-byte tag. */
export function aeadSeal(ctx: usize, nonce: usize, ad: usize, adLen: usize, src: usize, len: usize, dst: usize, tag: usize): void {
  const algorithm = load<i32>(ctx);
  const k = ctx + HEADER;
  if (algorithm == AeadAlgorithm.XChaCha20Poly1305) xchachaPolySeal(k, nonce, ad, adLen, src, len, dst, tag);
  else if (algorithm == AeadAlgorithm.ChaCha20Poly1305) chachaPolySeal(k, nonce, ad, adLen, src, len, dst, tag);
  else gcmSeal(k, nonce, ad, adLen, src, len, dst, tag, 16);
}

/** Verifies the 16-byte tag, then decrypts src -> dst. 1 ok; 0 forged (dst untouched). */
export function aeadOpen(ctx: usize, nonce: usize, ad: usize, adLen: usize, src: usize, len: usize, dst: usize, tag: usize): i32 {
  const algorithm = load<i32>(ctx);
  const k = ctx + HEADER;
  if (algorithm == AeadAlgorithm.XChaCha20Poly1305) return xchachaPolyOpen(k, nonce, ad, adLen, src, len, dst, tag);
  if (algorithm == AeadAlgorithm.ChaCha20Poly1305) return chachaPolyOpen(k, nonce, ad, adLen, src, len, dst, tag);
  return gcmOpen(k, nonce, ad, adLen, src, len, dst, tag, 16);
}

/** AES-GCM with a truncated tag (DAVE uses 8 bytes); `ctx` must be an AES context. */
export function aeadSealTruncated(ctx: usize, nonce: usize, ad: usize, adLen: usize, src: usize, len: usize, dst: usize, tag: usize, tagLen: usize): void {
  gcmSeal(ctx + HEADER, nonce, ad, adLen, src, len, dst, tag, tagLen);
}

export function aeadOpenTruncated(ctx: usize, nonce: usize, ad: usize, adLen: usize, src: usize, len: usize, dst: usize, tag: usize, tagLen: usize): i32 {
  return gcmOpen(ctx + HEADER, nonce, ad, adLen, src, len, dst, tag, tagLen);
}
