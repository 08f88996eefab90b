import type { VoiceCore } from '../VoiceCore.ts';

/**
 * Per-sender media keys by generation (protocols.md 4.5). The MLS layer feeds one per sender
 * per epoch: typically a HashRatchet over the sender's base secret
 * (MLS-Exporter("Discord Secure Frames v0", sender id as 8-byte LE, 16)).
 */
export interface KeyRatchet {
  /** The 16-byte AES-128 key of `generation`, or undefined when it is gone or out of reach. */
  getKey(generation: number): Uint8Array | undefined;
  /** Forget the key of `generation` (and the secrets before it) once it is no longer needed. */
  deleteKey(generation: number): void;
}

const textEncoder = new TextEncoder();

/** RFC 9420 variable-length integer (the `<V>` vector length prefix). */
function varint(n: number): number[] {
  if (n < 0x40) return [n];
  if (n < 0x4000) return [0x40 | (n >> 8), n & 0xff];
  return [0x80 | ((n >>> 24) & 0x3f), (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

/** HKDF-Expand-SHA256 in core.wasm. */
export function hkdfExpand(core: VoiceCore, prk: Uint8Array, info: Uint8Array, length: number): Uint8Array {
  const base = core.scratchAddress(prk.length + info.length + length);
  const bytes = core.bytes;
  bytes.set(prk, base);
  bytes.set(info, base + prk.length);
  const out = base + prk.length + info.length;
  if (!core.exports.hkdfExpandSha256(base, prk.length, base + prk.length, info.length, out, length)) {
    throw new RangeError('HKDF output too long');
  }
  const result = core.bytes.slice(out, out + length);
  core.bytes.fill(0, base, out + length);
  return result;
}

/** MLS ExpandWithLabel (RFC 9420 5.1) with SHA-256. */
export function mlsExpandWithLabel(core: VoiceCore, secret: Uint8Array, label: string, context: Uint8Array, length: number): Uint8Array {
  const fullLabel = textEncoder.encode(`MLS 1.0 ${label}`);
  const info = new Uint8Array([
    (length >> 8) & 0xff,
    length & 0xff,
    ...varint(fullLabel.length),
    ...fullLabel,
    ...varint(context.length),
    ...context,
  ]);
  return hkdfExpand(core, secret, info, length);
}

/** DeriveTreeSecret(secret, label, generation, length) (RFC 9420 9.1). */
export function mlsDeriveTreeSecret(core: VoiceCore, secret: Uint8Array, label: string, generation: number, length: number): Uint8Array {
  const context = new Uint8Array(4);
  new DataView(context.buffer).setUint32(0, generation >>> 0, false);
  return mlsExpandWithLabel(core, secret, label, context, length);
}

/**
 * The MLS hash ratchet (RFC 9420 9.1; mlspp HashRatchet as libdave uses it) for ciphersuite 2:
 * key_g = DeriveTreeSecret(secret_g, "key", g, 16),
 * secret_{g+1} = DeriveTreeSecret(secret_g, "secret", g, 32).
 * Keys can be fetched in any order within `maxGenerationGap` ahead of the newest; deleted
 * ones are gone for good.
 */
export class HashRatchet implements KeyRatchet {
  private nextGeneration = 0;
  private nextSecret: Uint8Array;
  private readonly keys = new Map<number, Uint8Array>();

  constructor(
    private readonly core: VoiceCore,
    baseSecret: Uint8Array,
    /** libdave: keys more than 250 generations ahead are refused. */
    private readonly maxGenerationGap = 250,
  ) {
    this.nextSecret = Uint8Array.from(baseSecret);
  }

  getKey(generation: number): Uint8Array | undefined {
    if (!Number.isInteger(generation) || generation < 0) return undefined;
    const cached = this.keys.get(generation);
    if (cached) return cached;
    if (generation < this.nextGeneration) return undefined;
    if (generation - this.nextGeneration > this.maxGenerationGap) return undefined;
    while (this.nextGeneration <= generation) {
      const g = this.nextGeneration;
      this.keys.set(g, mlsDeriveTreeSecret(this.core, this.nextSecret, 'key', g, 16));
      const next = mlsDeriveTreeSecret(this.core, this.nextSecret, 'secret', g, 32);
      this.nextSecret.fill(0);
      this.nextSecret = next;
      this.nextGeneration = g + 1;
    }
    return this.keys.get(generation);
  }

  deleteKey(generation: number): void {
    const key = this.keys.get(generation);
    if (key) key.fill(0);
    this.keys.delete(generation);
  }
}
