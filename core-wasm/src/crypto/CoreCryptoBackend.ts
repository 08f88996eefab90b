import { AeadAlgorithm, CoreError } from '../enums.ts';
import { VoiceCore, type VoiceCoreOptions } from '../VoiceCore.ts';
import { AEAD_CONTEXT_BYTES, CoreAead } from './CoreAead.ts';
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
    /** The core it runs in. */
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

/** Pool headroom kept free in an instance for scratch growth and internal buffers. */
const HEADROOM = 64 << 10;

/**
 * Voice crypto in core.wasm: zero-copy for buffers from `allocate`. A relay with many
 * connections outgrows one instance's pool; rather than growing that memory (which would
 * detach every buffer handed out so far), the backend then opens a further instance of the
 * module for new buffers and keys. A cipher and a buffer from different instances still work
 * together, through one copy each way.
 */
export class CoreCryptoBackend implements CryptoBackend {
  /** `core-wasm`. */
  readonly name = 'core-wasm';
  private readonly cores: VoiceCore[];
  private readonly poolBytes: number;

  private constructor(core: VoiceCore, private readonly growable: boolean) {
    this.cores = [core];
    this.poolBytes = core.poolBytes;
  }

  /** The backend over core.wasm (its own core, grown with more as ciphers are made). */
  static async create(options?: VoiceCoreOptions): Promise<CoreCryptoBackend> {
    return new CoreCryptoBackend(await VoiceCore.create(options), true);
  }

  /**
   * Wraps an existing VoiceCore (to share one instance with the media helpers). Everything
   * then lives in that instance, whose memory grows if its pool runs out.
   */
  static over(core: VoiceCore): CoreCryptoBackend {
    return new CoreCryptoBackend(core, false);
  }

  /** The instance in use (the newest). */
  get core(): VoiceCore {
    return this.cores[this.cores.length - 1]!;
  }

  /** Instances opened so far. */
  get instances(): number {
    return this.cores.length;
  }

  /** An instance with room for `bytes` more without growing memory. */
  private coreFor(bytes: number): VoiceCore {
    const core = this.core;
    if (!this.growable || core.poolRemaining >= bytes + HEADROOM) return core;
    const next = VoiceCore.createSync({ poolBytes: Math.max(this.poolBytes, bytes + 2 * HEADROOM) });
    this.cores.push(next);
    return next;
  }

  allocate(size: number): Uint8Array {
    return this.coreFor(size).alloc(size).bytes;
  }

  createTransportCipher(mode: TransportMode, key: Uint8Array): CoreTransportCipher {
    return new CoreTransportCipher(this.coreFor(AEAD_CONTEXT_BYTES), mode, key);
  }

  createAead(algorithm: AeadAlgorithm, key: Uint8Array): AeadCipher {
    return new CoreAeadCipher(this.coreFor(AEAD_CONTEXT_BYTES), algorithm, key);
  }
}
