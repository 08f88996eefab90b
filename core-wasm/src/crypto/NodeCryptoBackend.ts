import type * as NodeCrypto from 'node:crypto';
import { AeadAlgorithm, CoreError } from '../enums.ts';
import { VoiceCore } from '../VoiceCore.ts';
import { aeadKeyLength, aeadNonceLength, hchacha20 } from './CoreAead.ts';
import {
  TRANSPORT_OVERHEAD,
  TransportMode,
  isTransportMode,
  type AeadCipher,
  type CryptoBackend,
  type TransportCipher,
} from './CryptoBackend.ts';

const TAG = 16;
const MAX_PACKET = 65535;

/** node:crypto without an import statement, so browser bundles of this package still build. */
function nodeCrypto(): typeof NodeCrypto {
  const mod = typeof process !== 'undefined' ? process.getBuiltinModule?.('node:crypto') : undefined;
  if (!mod) throw new Error('NodeCryptoBackend needs Node (node:crypto)');
  return mod;
}

type CipherName = 'aes-256-gcm' | 'aes-128-gcm' | 'chacha20-poly1305';

/**
 * One AEAD key over node:crypto (OpenSSL: AES-NI and vectorised ChaCha). XChaCha20-Poly1305,
 * which OpenSSL lacks, is HChaCha20 from core.wasm followed by IETF ChaCha20-Poly1305.
 */
class NodeAead {
  private readonly cipher: CipherName;
  private readonly key: Buffer;
  private readonly nonce12 = Buffer.alloc(12);

  constructor(
    private readonly crypto: typeof NodeCrypto,
    private readonly core: VoiceCore,
    readonly algorithm: AeadAlgorithm,
    key: Uint8Array,
  ) {
    if (key.length !== aeadKeyLength(algorithm)) throw new RangeError(`key must be ${aeadKeyLength(algorithm)} bytes`);
    this.key = Buffer.from(key);
    this.cipher =
      algorithm === AeadAlgorithm.Aes256Gcm ? 'aes-256-gcm' : algorithm === AeadAlgorithm.Aes128Gcm ? 'aes-128-gcm' : 'chacha20-poly1305';
  }

  /** Key and 12-byte nonce for this call (XChaCha: the subkey and the nonce's last 8 bytes). */
  private keyAndNonce(nonce: Uint8Array): [Buffer, Buffer] {
    if (nonce.length !== aeadNonceLength(this.algorithm)) throw new RangeError(`nonce must be ${aeadNonceLength(this.algorithm)} bytes`);
    if (this.algorithm !== AeadAlgorithm.XChaCha20Poly1305) return [this.key, Buffer.from(nonce.buffer, nonce.byteOffset, 12)];
    const subkey = Buffer.alloc(32);
    hchacha20(this.core, this.key, nonce, subkey);
    this.nonce12.fill(0, 0, 4);
    this.nonce12.set(nonce.subarray(16, 24), 4);
    return [subkey, this.nonce12];
  }

  /** ciphertext and tag as separate Buffers. */
  seal(nonce: Uint8Array, plaintext: Uint8Array, ad: Uint8Array): [Buffer, Buffer] {
    const [key, iv] = this.keyAndNonce(nonce);
    const c = this.crypto.createCipheriv(this.cipher as 'chacha20-poly1305', key, iv, { authTagLength: TAG });
    c.setAAD(ad, { plaintextLength: plaintext.length });
    const out = c.update(plaintext);
    c.final();
    return [out, c.getAuthTag()];
  }

  /** The plaintext, or null if the tag does not verify (nothing is released before final()). */
  open(nonce: Uint8Array, ciphertext: Uint8Array, tag: Uint8Array, ad: Uint8Array): Buffer | null {
    const [key, iv] = this.keyAndNonce(nonce);
    const d = this.crypto.createDecipheriv(this.cipher as 'chacha20-poly1305', key, iv, { authTagLength: TAG });
    d.setAuthTag(tag);
    d.setAAD(ad, { plaintextLength: ciphertext.length });
    const out = d.update(ciphertext);
    try {
      d.final();
    } catch {
      return null;
    }
    return out;
  }
}

class NodeAeadCipher implements AeadCipher {
  constructor(private readonly aead: NodeAead) {}
  get algorithm(): AeadAlgorithm {
    return this.aead.algorithm;
  }
  encrypt(nonce: Uint8Array, plaintext: Uint8Array, ad: Uint8Array = new Uint8Array(0)): Uint8Array {
    const [ct, tag] = this.aead.seal(nonce, plaintext, ad);
    const out = new Uint8Array(ct.length + TAG);
    out.set(ct);
    out.set(tag, ct.length);
    return out;
  }
  decrypt(nonce: Uint8Array, sealed: Uint8Array, ad: Uint8Array = new Uint8Array(0)): Uint8Array | null {
    if (sealed.length < TAG) return null;
    const n = sealed.length - TAG;
    const out = this.aead.open(nonce, sealed.subarray(0, n), sealed.subarray(n), ad);
    return out && new Uint8Array(out.buffer, out.byteOffset, out.length);
  }
  destroy(): void {}
}

function rtpsizeHeaderLength(packet: Uint8Array, length: number): number {
  if (length < 12) return CoreError.TooShort;
  const b0 = packet[0]!;
  if (b0 >> 6 !== 2) return CoreError.BadVersion;
  const n = 12 + 4 * (b0 & 0x0f) + (b0 & 0x10 ? 4 : 0);
  return n <= length ? n : CoreError.TooShort;
}

/** The transport modes over node:crypto, byte-identical to CoreTransportCipher. */
class NodeTransportCipher implements TransportCipher {
  private readonly aead: NodeAead;
  private readonly nonce: Uint8Array;
  private nextNonce = 0;
  frameOffset = 0;
  lastNonce = 0;

  constructor(crypto: typeof NodeCrypto, core: VoiceCore, readonly mode: TransportMode, key: Uint8Array) {
    if (!isTransportMode(mode)) throw new RangeError(`unsupported transport mode ${String(mode)}`);
    const algorithm = mode === TransportMode.Aes256GcmRtpsize ? AeadAlgorithm.Aes256Gcm : AeadAlgorithm.XChaCha20Poly1305;
    this.aead = new NodeAead(crypto, core, algorithm, key);
    this.nonce = new Uint8Array(aeadNonceLength(algorithm));
  }

  private setNonce(counter: number): void {
    new DataView(this.nonce.buffer).setUint32(0, counter >>> 0, false);
  }

  seal(packet: Uint8Array, length: number, nonce?: number): number {
    if (nonce === undefined) nonce = this.nextNonce = (this.nextNonce + 1) >>> 0;
    if (!(length >= 0 && length <= packet.length) || length > MAX_PACKET - TRANSPORT_OVERHEAD) return CoreError.TooLong;
    const aad = rtpsizeHeaderLength(packet, length);
    if (aad < 0) return aad;
    if (length + TRANSPORT_OVERHEAD > packet.length) return CoreError.NoRoom;
    this.setNonce(nonce);
    const [ct, tag] = this.aead.seal(this.nonce, packet.subarray(aad, length), packet.subarray(0, aad));
    packet.set(ct, aad);
    packet.set(tag, length);
    packet.set(this.nonce.subarray(0, 4), length + TAG);
    return length + TRANSPORT_OVERHEAD;
  }

  open(packet: Uint8Array, length: number): number {
    if (!(length >= 0 && length <= packet.length) || length > MAX_PACKET) return CoreError.TooLong;
    if (length < 12 + TRANSPORT_OVERHEAD) return CoreError.TooShort;
    const aad = rtpsizeHeaderLength(packet, length);
    if (aad < 0) return aad;
    if (length < aad + TRANSPORT_OVERHEAD) return CoreError.TooShort;
    const end = length - TRANSPORT_OVERHEAD;
    this.nonce.fill(0);
    this.nonce.set(packet.subarray(length - 4, length), 0);
    const plain = this.aead.open(this.nonce, packet.subarray(aad, end), packet.subarray(end, end + TAG), packet.subarray(0, aad));
    if (!plain) return CoreError.AuthFailed;
    packet.set(plain, aad);
    let start = aad;
    let stop = end;
    const b0 = packet[0]!;
    if (b0 & 0x10) {
      const extBytes = ((packet[aad - 2]! << 8) | packet[aad - 1]!) * 4;
      if (extBytes > end - aad) return CoreError.BadExtension;
      start += extBytes;
    }
    if (b0 & 0x20) {
      const pad = stop > start ? packet[stop - 1]! : 0;
      if (pad === 0 || pad > stop - start) return CoreError.BadPadding;
      stop -= pad;
    }
    this.frameOffset = start;
    this.lastNonce = new DataView(packet.buffer, packet.byteOffset).getUint32(length - 4, false);
    return stop - start;
  }

  destroy(): void {}
}

/** Voice crypto over node:crypto (OpenSSL), with HChaCha20 from core.wasm for the X variant. */
export class NodeCryptoBackend implements CryptoBackend {
  /** `node:crypto`. */
  readonly name = 'node:crypto';

  private constructor(
    private readonly crypto: typeof NodeCrypto,
    private readonly core: VoiceCore,
  ) {}

  /** The backend over node:crypto, with a small core for HChaCha20 (the X variant's key derivation). */
  static async create(): Promise<NodeCryptoBackend> {
    const crypto = nodeCrypto();
    return new NodeCryptoBackend(crypto, await VoiceCore.create({ poolBytes: 64 << 10 }));
  }

  allocate(size: number): Uint8Array {
    return Buffer.alloc(size);
  }

  createTransportCipher(mode: TransportMode, key: Uint8Array): TransportCipher {
    return new NodeTransportCipher(this.crypto, this.core, mode, key);
  }

  createAead(algorithm: AeadAlgorithm, key: Uint8Array): AeadCipher {
    return new NodeAeadCipher(new NodeAead(this.crypto, this.core, algorithm, key));
  }
}
