// AES-GCM (NIST SP 800-38D) with 12-byte nonces, over aes.ts and ghash.ts. A context is
// GCM_CTX_SIZE bytes of caller-allocated memory: round keys, round count, GHASH table.
// Open verifies the tag over the ciphertext before decrypting anything, so a forged packet
// leaves its buffer untouched.
import { aesEncryptWords, aesExpandKey } from './aes';
import { ghashFinish, ghashInit, ghashPadded, ghashReset } from './ghash';
import { ctEqual } from './poly1305';

export const GCM_CTX_SIZE: usize = 512;
const RK: usize = 0;
const ROUNDS: usize = 240;
const TABLE: usize = 256;

const BLOCK: usize = memory.data(16, 16);
const EJ0: usize = memory.data(16, 16);
const TAG: usize = memory.data(16, 16);

export function gcmInit(ctx: usize, key: usize, keyLen: i32): void {
  const rounds = aesExpandKey(key, keyLen, ctx + RK);
  store<u32>(ctx + ROUNDS, rounds);
  aesEncryptWords(ctx + RK, rounds, 0, 0, 0, 0, BLOCK);
  ghashInit(BLOCK, ctx + TABLE);
  v128.store(BLOCK, v128.splat<i32>(0));
}

/** CTR keystream XOR from counter block (n0, n1, n2, c), in == out allowed. */
function ctr(ctx: usize, n0: u32, n1: u32, n2: u32, c: u32, src: usize, dst: usize, len: usize): void {
  const rk = ctx + RK;
  const rounds = <i32>load<u32>(ctx + ROUNDS);
  const ks = BLOCK;
  while (len >= 16) {
    aesEncryptWords(rk, rounds, n0, n1, n2, c, ks);
    v128.store(dst, v128.xor(v128.load(src), v128.load(ks)));
    c++;
    src += 16;
    dst += 16;
    len -= 16;
  }
  if (len) {
    aesEncryptWords(rk, rounds, n0, n1, n2, c, ks);
    for (let i: usize = 0; i < len; i++) store<u8>(dst + i, load<u8>(src + i) ^ load<u8>(ks + i));
  }
  v128.store(ks, v128.splat<i32>(0));
}

function tagInto(ctx: usize, n0: u32, n1: u32, n2: u32, ad: usize, adLen: usize, ct: usize, ctLen: usize): void {
  aesEncryptWords(ctx + RK, <i32>load<u32>(ctx + ROUNDS), n0, n1, n2, 1, EJ0);
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
  ctr(ctx, n0, n1, n2, 2, src, dst, len);
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
  ctr(ctx, n0, n1, n2, 2, src, dst, len);
  return 1;
}
