import { AeadAlgorithm, CoreError } from '../enums.ts';
import { VoiceCore, type VoiceCoreOptions } from '../VoiceCore.ts';
import { CoreAead } from './CoreAead.ts';
import {
  TRANSPORT_OVERHEAD,
  TransportMode,
  isTransportMode,
  type AeadCipher,
  type CryptoBackend,
  type TransportCipher,
} from './CryptoBackend.ts';

const MAX_PACKET = 65535;

/** The transport AEAD in core.wasm (assembly/voice/transport.ts). */
export class CoreTransportCipher implements TransportCipher {
  private readonly aead: CoreAead;
  private nextNonce = 0;
  frameOffset = 0;
  lastNonce = 0;

  constructor(
    readonly core: VoiceCore,
    readonly mode: TransportMode,
    key: Uint8Array,
  ) {
    if (!isTransportMode(mode)) throw new RangeError(`unsupported transport mode ${String(mode)}`);
    const algorithm = mode === TransportMode.Aes256GcmRtpsize ? AeadAlgorithm.Aes256Gcm : AeadAlgorithm.XChaCha20Poly1305;
    this.aead = new CoreAead(core, algorithm, key);
  }

  seal(packet: Uint8Array, length: number, nonce?: number): number {
    if (nonce === undefined) nonce = this.nextNonce = (this.nextNonce + 1) >>> 0;
    if (!(length >= 0 && length <= packet.length)) return CoreError.TooLong;
    const core = this.core;
    if (core.owns(packet)) {
      return core.exports.transportSeal(this.aead.context, packet.byteOffset, length, packet.length, nonce);
    }
    if (length + TRANSPORT_OVERHEAD > packet.length) return CoreError.NoRoom;
    const at = core.scratchAddress(length + TRANSPORT_OVERHEAD);
    core.bytes.set(packet.subarray(0, length), at);
    const result = core.exports.transportSeal(this.aead.context, at, length, length + TRANSPORT_OVERHEAD, nonce);
    if (result > 0) packet.set(core.bytes.subarray(at, at + result));
    return result;
  }

  open(packet: Uint8Array, length: number): number {
    if (!(length >= 0 && length <= packet.length) || length > MAX_PACKET) return CoreError.TooLong;
    const core = this.core;
    let result: number;
    if (core.owns(packet)) {
      result = core.exports.transportOpen(this.aead.context, packet.byteOffset, length);
    } else {
      const at = core.scratchAddress(length);
      core.bytes.set(packet.subarray(0, length), at);
      result = core.exports.transportOpen(this.aead.context, at, length);
      if (result >= 0 || result === CoreError.BadExtension || result === CoreError.BadPadding) {
        packet.set(core.bytes.subarray(at, at + length));
      }
    }
    if (result >= 0) {
      this.frameOffset = core.result(0);
      this.lastNonce = core.result(1) >>> 0;
    }
    return result;
  }

  destroy(): void {
    this.aead.destroy();
  }
}

/** AeadCipher over CoreAead. */
class CoreAeadCipher implements AeadCipher {
  private readonly aead: CoreAead;
  constructor(core: VoiceCore, readonly algorithm: AeadAlgorithm, key: Uint8Array) {
    this.aead = new CoreAead(core, algorithm, key);
  }
  encrypt(nonce: Uint8Array, plaintext: Uint8Array, ad?: Uint8Array): Uint8Array {
    return this.aead.encrypt(nonce, plaintext, ad);
  }
  decrypt(nonce: Uint8Array, sealed: Uint8Array, ad?: Uint8Array): Uint8Array | null {
    return this.aead.decrypt(nonce, sealed, ad);
  }
  destroy(): void {
    this.aead.destroy();
  }
}

/** Voice crypto in core.wasm: zero-copy for buffers from `allocate`. */
export class CoreCryptoBackend implements CryptoBackend {
  readonly name = 'core-wasm';

  private constructor(readonly core: VoiceCore) {}

  static async create(options?: VoiceCoreOptions): Promise<CoreCryptoBackend> {
    return new CoreCryptoBackend(await VoiceCore.create(options));
  }

  /** Wraps an existing VoiceCore (to share one instance with the media helpers). */
  static over(core: VoiceCore): CoreCryptoBackend {
    return new CoreCryptoBackend(core);
  }

  allocate(size: number): Uint8Array {
    return this.core.alloc(size).bytes;
  }

  createTransportCipher(mode: TransportMode, key: Uint8Array): CoreTransportCipher {
    return new CoreTransportCipher(this.core, mode, key);
  }

  createAead(algorithm: AeadAlgorithm, key: Uint8Array): AeadCipher {
    return new CoreAeadCipher(this.core, algorithm, key);
  }
}
