import { AeadAlgorithm } from '../enums.ts';
import type { VoiceCore } from '../VoiceCore.ts';

/** Bytes of the authentication tag of the voice transport AEAD modes. */
export const TAG_BYTES = 16;
/** Bytes of one AEAD context in core memory (assembly/crypto/aead.ts AEAD_CTX_SIZE). */
export const AEAD_CONTEXT_BYTES = 16 + 512 + 4096;

const KEY_BYTES: Record<AeadAlgorithm, number> = {
  [AeadAlgorithm.Aes256Gcm]: 32,
  [AeadAlgorithm.XChaCha20Poly1305]: 32,
  [AeadAlgorithm.ChaCha20Poly1305]: 32,
  [AeadAlgorithm.Aes128Gcm]: 16,
};

/** Key length in bytes of an AEAD algorithm. */
export function aeadKeyLength(algorithm: AeadAlgorithm): number {
  return KEY_BYTES[algorithm];
}

/** Nonce length in bytes of an AEAD algorithm. */
export function aeadNonceLength(algorithm: AeadAlgorithm): number {
  return algorithm === AeadAlgorithm.XChaCha20Poly1305 ? 24 : 12;
}

/**
 * One AEAD key in core.wasm (expanded once). Two ways in:
 * - `sealAt` / `openAt` take addresses in the core's memory (WasmBuffer.address + offset):
 *   no copy, no allocation; this is the per-packet path.
 * - `encrypt` / `decrypt` take any Uint8Array and return new arrays (copies): for tests, tools
 *   and one-off use.
 */
export class CoreAead {
  /** Context address; 0 after destroy(). */
  private ctx: number;

  constructor(
    /** The core it runs in. */
    readonly core: VoiceCore,
    /** The AEAD algorithm. */
    readonly algorithm: AeadAlgorithm,
    key: Uint8Array,
  ) {
    if (!(algorithm in KEY_BYTES)) throw new RangeError(`unknown AEAD algorithm ${algorithm}`);
    if (key.length !== KEY_BYTES[algorithm]) throw new RangeError(`key must be ${KEY_BYTES[algorithm]} bytes`);
    const at = core.scratchAddress(32);
    core.copyIn(key, at);
    this.ctx = core.exports.aeadCreate(algorithm, at);
    core.account(AEAD_CONTEXT_BYTES);
    core.bytes.fill(0, at, at + 32);
  }

  /** The context's address, for other core calls (transport, DAVE). */
  get context(): number {
    if (this.ctx === 0) throw new Error('AEAD used after destroy()');
    return this.ctx;
  }

  /** Nonce length in bytes of the algorithm. */
  get nonceLength(): number {
    return aeadNonceLength(this.algorithm);
  }

  /** Encrypts [src, src+length) to dst (may equal src) and writes the 16-byte tag at `tag`. */
  sealAt(nonce: number, ad: number, adLength: number, src: number, length: number, dst: number, tag: number): void {
    this.core.exports.aeadSeal(this.context, nonce, ad, adLength, src, length, dst, tag);
  }

  /** Verifies the tag, then decrypts; false (and dst untouched) when it does not verify. */
  openAt(nonce: number, ad: number, adLength: number, src: number, length: number, dst: number, tag: number): boolean {
    return this.core.exports.aeadOpen(this.context, nonce, ad, adLength, src, length, dst, tag) === 1;
  }

  /** ciphertext || tag. */
  encrypt(nonce: Uint8Array, plaintext: Uint8Array, ad: Uint8Array = new Uint8Array(0)): Uint8Array {
    this.checkNonce(nonce);
    const n = this.nonceLength;
    const base = this.core.scratchAddress(n + ad.length + plaintext.length + TAG_BYTES);
    const bytes = this.core.bytes;
    bytes.set(nonce, base);
    bytes.set(ad, base + n);
    const data = base + n + ad.length;
    bytes.set(plaintext, data);
    this.sealAt(base, base + n, ad.length, data, plaintext.length, data, data + plaintext.length);
    return this.core.bytes.slice(data, data + plaintext.length + TAG_BYTES);
  }

  /** The plaintext, or null when `sealed` (ciphertext || tag) does not verify. */
  decrypt(nonce: Uint8Array, sealed: Uint8Array, ad: Uint8Array = new Uint8Array(0)): Uint8Array | null {
    this.checkNonce(nonce);
    if (sealed.length < TAG_BYTES) return null;
    const n = this.nonceLength;
    const length = sealed.length - TAG_BYTES;
    const base = this.core.scratchAddress(n + ad.length + sealed.length);
    const bytes = this.core.bytes;
    bytes.set(nonce, base);
    bytes.set(ad, base + n);
    const data = base + n + ad.length;
    bytes.set(sealed, data);
    if (!this.openAt(base, base + n, ad.length, data, length, data, data + length)) return null;
    return this.core.bytes.slice(data, data + length);
  }

  /** Frees the key context in the core. */
  destroy(): void {
    if (this.ctx !== 0) {
      this.core.exports.aeadDestroy(this.ctx);
      this.core.account(-AEAD_CONTEXT_BYTES);
    }
    this.ctx = 0;
  }

  private checkNonce(nonce: Uint8Array): void {
    if (nonce.length !== this.nonceLength) throw new RangeError(`nonce must be ${this.nonceLength} bytes`);
  }
}

/** HChaCha20 (XChaCha20's subkey step): 32-byte subkey from a 32-byte key and 16-byte nonce. */
export function hchacha20(core: VoiceCore, key: Uint8Array, nonce16: Uint8Array, out = new Uint8Array(32)): Uint8Array {
  if (key.length !== 32 || nonce16.length < 16) throw new RangeError('hchacha20 needs a 32-byte key and 16-byte nonce');
  const base = core.scratchAddress(80);
  const bytes = core.bytes;
  bytes.set(key, base);
  bytes.set(nonce16.subarray(0, 16), base + 32);
  core.exports.hchacha20(base, base + 32, base + 48);
  out.set(core.bytes.subarray(base + 48, base + 80));
  core.bytes.fill(0, base, base + 80);
  return out;
}
