// AES-GCM (NIST SP 800-38D) with 12-byte nonces, over aes.ts and ghash.ts. A context is
// GCM_CTX_SIZE bytes of caller-allocated memory: round keys, round count, GHASH table.
// Open verifies the tag over the ciphertext before decrypting anything, so a forged packet
// leaves its buffer untouched.
import { aesCtrXor, aesEncryptWords, aesExpandKey } from './aes';
import { GHASH_TABLE_SIZE, ghashFinish, ghashInit, ghashPadded, ghashReset } from './ghash';
import { ctEqual } from './poly1305';

const RK: usize = 0; // AES_KEY_SIZE (272) bytes
const TABLE: usize = 512;
export const GCM_CTX_SIZE: usize = TABLE + GHASH_TABLE_SIZE;

const BLOCK: usize = memory.data(16, 16);
const EJ0: usize = memory.data(16, 16);
const TAG: usize = memory.data(16, 16);

export function gcmInit(ctx: usize, key: usize, keyLen: i32): void {
  aesExpandKey(key, keyLen, ctx + RK);
  aesEncryptWords(ctx + RK, 0, 0, 0, 0, BLOCK);
  ghashInit(BLOCK, ctx + TABLE);
  v128.store(BLOCK, v128.splat<i32>(0));
}

function tagInto(ctx: usize, n0: u32, n1: u32, n2: u32, ad: usize, adLen: usize, ct: usize, ctLen: usize): void {
  aesEncryptWords(ctx + RK, n0, n1, n2, 1, EJ0);
  const table = ctx + TABLE;
  ghashReset();
  ghashPadded(table, ad, adLen);
  ghashPadded(table, ct, ctLen);
  ghashFinish(table, adLen, ctLen, TAG);
  v128.store(TAG, v128.xor(v128.load(TAG), v128.load(EJ0)));
  v128.store(EJ0, v128.splat<i32>(0));
}

/** Encrypts src -> dst and writes the first `tagLen` bytes of the tag at `tag`. */
export function gcmSeal(
  ctx: usize, nonce: usize, ad: usize, adLen: usize, src: usize, len: usize, dst: usize, tag: usize, tagLen: usize,
): void {
  const n0 = bswap<u32>(load<u32>(nonce, 0));
  const n1 = bswap<u32>(load<u32>(nonce, 4));
  const n2 = bswap<u32>(load<u32>(nonce, 8));
  aesCtrXor(ctx + RK, n0, n1, n2, 2, src, dst, len);
  tagInto(ctx, n0, n1, n2, ad, adLen, dst, len);
  memory.copy(tag, TAG, tagLen);
  v128.store(TAG, v128.splat<i32>(0));
}

/** Checks the (possibly truncated) tag, then decrypts src -> dst. 1 on success, 0 (nothing written) on failure. */
export function gcmOpen(
  ctx: usize, nonce: usize, ad: usize, adLen: usize, src: usize, len: usize, dst: usize, tag: usize, tagLen: usize,
): i32 {
  const n0 = bswap<u32>(load<u32>(nonce, 0));
  const n1 = bswap<u32>(load<u32>(nonce, 4));
  const n2 = bswap<u32>(load<u32>(nonce, 8));
  tagInto(ctx, n0, n1, n2, ad, adLen, src, len);
  const ok = ctEqual(TAG, tag, tagLen);
  v128.store(TAG, v128.splat<i32>(0));
  if (!ok) return 0;
  aesCtrXor(ctx + RK, n0, n1, n2, 2, src, dst, len);
  return 1;
}
