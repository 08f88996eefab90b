import { AeadAlgorithm, CoreError } from '../enums.ts';
import { CoreAead } from '../crypto/CoreAead.ts';
import type { VoiceCore, WasmBuffer } from '../VoiceCore.ts';
import type { KeyRatchet } from './KeyRatchet.ts';

/** An unencrypted range of a media frame (video codecs keep headers readable). */
export interface UnencryptedRange {
  /** Where the range starts in the frame, in bytes. */
  offset: number;
  /** Its length in bytes. */
  length: number;
}

/** Trailer bytes a frame gains: tag 8 + nonce (up to 5) + size 1 + marker 2, plus ranges. */
export const DAVE_MAX_OVERHEAD_OPUS = 16;

const NO_RANGES: readonly UnencryptedRange[] = [];

/** The Opus silence frame, which DAVE leaves unencrypted. */
export function isSilence(frame: Uint8Array, length = frame.length): boolean {
  return length === 3 && frame[0] === 0xf8 && frame[1] === 0xff && frame[2] === 0xfe;
}

/** The generation a 32-bit truncated nonce belongs to (its top byte). */
export function daveGeneration(nonce: number): number {
  return nonce >>> 24;
}

/**
 * Addresses of a call's source and destination in core memory. In place when the caller's
 * arrays live in core memory; otherwise through this object's own buffer (grown on demand,
 * reused per frame), not the shared scratch, which key derivation uses mid-call.
 */
class CoreIo {
  src = 0;
  dst = 0;
  cap = 0;
  copied = false;
  private buffer: WasmBuffer | undefined;

  constructor(private readonly core: VoiceCore) {}

  prepare(src: Uint8Array, length: number, dst: Uint8Array): void {
    const core = this.core;
    this.cap = dst.length;
    if (core.owns(src) && core.owns(dst)) {
      this.src = src.byteOffset;
      this.dst = dst.byteOffset;
      this.copied = false;
      return;
    }
    const need = length + dst.length;
    if (!this.buffer || this.buffer.capacity < need) {
      this.buffer?.free();
      this.buffer = core.alloc(Math.max(need, 2048));
    }
    const base = this.buffer.address;
    core.bytes.set(src.subarray(0, length), base);
    this.src = base;
    this.dst = base + length;
    this.copied = true;
  }

  finish(dst: Uint8Array, result: number): number {
    if (this.copied && result > 0) dst.set(this.core.bytes.subarray(this.dst, this.dst + result));
    return result;
  }

  free(): void {
    this.buffer?.free();
    this.buffer = undefined;
  }
}

/**
 * The sender side of the DAVE frame cipher (protocols.md 4.4): one per sender per epoch. The
 * truncated nonce is pre-incremented per frame (first frame 1); its top byte is the key
 * generation, taken from the ratchet and switched every 2^24 frames.
 */
export class DaveFrameEncryptor {
  private nonce = 0;
  /** Times the 32-bit nonce wrapped: generations keep counting past 255 (libdave). */
  private wraps = 0;
  private generation = -1;
  private aead: CoreAead | undefined;
  private readonly io: CoreIo;

  constructor(
    /** The core it runs in. */
    readonly core: VoiceCore,
    private ratchet: KeyRatchet,
    /** The nonce before the first frame's (0: the first frame uses 1, as libdave). */
    initialNonce = 0,
  ) {
    this.nonce = initialNonce >>> 0;
    this.io = new CoreIo(core);
  }

  /** The truncated nonce of the last encrypted frame. */
  get lastNonce(): number {
    return this.nonce;
  }

  /** A new epoch: new ratchet, nonce back to 0. */
  setRatchet(ratchet: KeyRatchet): void {
    this.ratchet = ratchet;
    this.nonce = 0;
    this.wraps = 0;
    this.generation = -1;
    this.aead?.destroy();
    this.aead = undefined;
  }

  /**
   * Encrypts src[0, length) into dst (which may be src) and appends the trailer. Returns the
   * output length or a negative CoreError. The silence frame F8 FF FE passes through.
   */
  encrypt(src: Uint8Array, length: number, dst: Uint8Array, ranges: readonly UnencryptedRange[] = NO_RANGES): number {
    if (!(length >= 0 && length <= src.length)) return CoreError.TooLong;
    if (isSilence(src, length)) {
      // Passes through unencrypted and uses no nonce (protocols.md 4.4).
      if (dst.length < 3) return CoreError.NoRoom;
      if (dst !== src) dst.set(src.subarray(0, 3));
      return 3;
    }
    this.nonce = (this.nonce + 1) >>> 0;
    if (this.nonce === 0) this.wraps++;
    const generation = this.wraps * 256 + daveGeneration(this.nonce);
    if (generation !== this.generation || !this.aead) {
      const key = this.ratchet.getKey(generation);
      if (!key) return CoreError.NoKey;
      this.aead?.destroy();
      this.aead = new CoreAead(this.core, AeadAlgorithm.Aes128Gcm, key);
      if (this.generation >= 0) this.ratchet.deleteKey(this.generation);
      this.generation = generation;
    }
    const ctx = this.aead.context;
    const exports = this.core.exports;
    if (ranges.length > 0) {
      const at = exports.daveRangesAddress();
      const view = this.core.view;
      if (ranges.length > 64) return CoreError.BadArgument;
      ranges.forEach((r, i) => {
        view.setUint32(at + i * 8, r.offset >>> 0, true);
        view.setUint32(at + i * 8 + 4, r.length >>> 0, true);
      });
    }
    const io = this.io;
    io.prepare(src, length, dst);
    const result = exports.daveEncrypt(ctx, io.src, length, io.dst, io.cap, this.nonce, exports.daveRangesAddress(), ranges.length);
    return io.finish(dst, result);
  }

  /** Frees its keys and memory in the core. */
  destroy(): void {
    this.aead?.destroy();
    this.aead = undefined;
    this.io.free();
  }
}

const REPLAY_WINDOW = 1024;

/** Options of `DaveFrameDecryptor`. */
export interface DaveFrameDecryptorOptions {
  /** How long keys of older generations and epochs stay usable after a newer one (libdave: 10 s). */
  keyExpiryMs?: number;
  /** Clock for key expiry (default Date.now). */
  now?: () => number;
}

/** Keys and replay state of one sender in one epoch (one ratchet). */
class EpochKeys {
  private readonly keys = new Map<number, CoreAead>();
  /** When each generation's first authenticated frame arrived (drives expiry of older ones). */
  private readonly firstSeen = new Map<number, number>();
  /** The next time a key may have expired. */
  private sweepAt = Number.POSITIVE_INFINITY;
  /** Newest nonce decrypted, extended past u32 wrap-around (a safe integer), or -1. */
  newest = -1;
  private readonly seen = new Uint32Array(REPLAY_WINDOW / 32);
  /** When the whole epoch stops being usable (set when a newer epoch replaces it). */
  expiresAt = Number.POSITIVE_INFINITY;

  constructor(
    private readonly core: VoiceCore,
    private readonly ratchet: KeyRatchet,
    private readonly keyExpiryMs: number,
  ) {}

  /** Places a u32 nonce on the extended line nearest the newest one (handles wrap-around). */
  extend(nonce: number): number {
    if (this.newest < 0) return nonce;
    let candidate = this.newest - (this.newest % 2 ** 32) + nonce;
    if (candidate - this.newest > 2 ** 31) candidate -= 2 ** 32;
    else if (this.newest - candidate > 2 ** 31) candidate += 2 ** 32;
    return candidate < 0 ? nonce : candidate;
  }

  isReplay(n: number): boolean {
    if (this.newest < 0 || n > this.newest) return false;
    if (this.newest - n >= REPLAY_WINDOW) return true;
    const bit = n % REPLAY_WINDOW;
    return (this.seen[bit >>> 5]! & (1 << (bit & 31))) !== 0;
  }

  markSeen(n: number): void {
    if (n > this.newest) {
      // Clear the bits of the nonces the window slides over.
      if (this.newest < 0 || n - this.newest >= REPLAY_WINDOW) this.seen.fill(0);
      else for (let k = this.newest + 1; k <= n; k++) this.setBit(k, false);
      this.newest = n;
    }
    this.setBit(n, true);
  }

  private setBit(n: number, on: boolean): void {
    const bit = n % REPLAY_WINDOW;
    if (on) this.seen[bit >>> 5]! |= 1 << (bit & 31);
    else this.seen[bit >>> 5]! &= ~(1 << (bit & 31));
  }

  /**
   * The context for `generation`, deriving it when needed. Older generations expire
   * keyExpiryMs after the first authenticated frame of a newer one; the sweep that drops them
   * runs only when one is due, so the per-frame path is one Map lookup.
   */
  keyFor(generation: number, now: number): CoreAead | undefined {
    if (now >= this.sweepAt) this.sweep(now);
    const cached = this.keys.get(generation);
    if (cached) return cached;
    if (this.expiry(generation) <= now) return undefined;
    const key = this.ratchet.getKey(generation);
    if (!key) return undefined;
    const aead = new CoreAead(this.core, AeadAlgorithm.Aes128Gcm, key);
    this.keys.set(generation, aead);
    this.sweepAt = Math.min(this.sweepAt, this.expiry(generation));
    return aead;
  }

  /** Records an authenticated frame of `generation` (forged frames must not expire keys). */
  confirm(generation: number, now: number): void {
    if (this.firstSeen.has(generation)) return;
    this.firstSeen.set(generation, now);
    for (const g of this.keys.keys()) if (g < generation) this.sweepAt = Math.min(this.sweepAt, now + this.keyExpiryMs);
  }

  /** When `generation` stops being usable (Infinity while nothing newer has been seen). */
  private expiry(generation: number): number {
    let at = Number.POSITIVE_INFINITY;
    for (const [g, seen] of this.firstSeen) if (g > generation) at = Math.min(at, seen + this.keyExpiryMs);
    return at;
  }

  private sweep(now: number): void {
    let next = Number.POSITIVE_INFINITY;
    for (const [g, aead] of this.keys) {
      const at = this.expiry(g);
      if (at <= now) {
        aead.destroy();
        this.keys.delete(g);
        this.ratchet.deleteKey(g);
      } else next = Math.min(next, at);
    }
    this.sweepAt = next;
  }

  destroy(): void {
    for (const [g, aead] of this.keys) {
      aead.destroy();
      this.ratchet.deleteKey(g);
    }
    this.keys.clear();
  }
}

/**
 * The receiver side for one sender: picks the key by the frame's generation, tolerates
 * reordering, rejects replays (each nonce decrypts at most once, within a 1024-frame window
 * behind the newest), keeps older generations' keys for 10 s after a newer one appears, and
 * keeps the previous epoch's keys for 10 s after setRatchet (frames in flight across a
 * transition).
 */
export class DaveFrameDecryptor {
  private current: EpochKeys;
  private previous: EpochKeys[] = [];
  private readonly keyExpiryMs: number;
  private readonly now: () => number;
  private readonly io: CoreIo;
  /** The last decrypted frame's truncated nonce. */
  lastNonce = 0;

  constructor(
    /** The core it runs in. */
    readonly core: VoiceCore,
    ratchet: KeyRatchet,
    options: DaveFrameDecryptorOptions = {},
  ) {
    this.keyExpiryMs = options.keyExpiryMs ?? 10_000;
    this.now = options.now ?? (() => Date.now());
    this.current = new EpochKeys(core, ratchet, this.keyExpiryMs);
    this.io = new CoreIo(core);
  }

  /** A new epoch's ratchet (MLS commit or welcome); the old one stays usable for a while. */
  setRatchet(ratchet: KeyRatchet): void {
    this.current.expiresAt = this.now() + this.keyExpiryMs;
    this.previous.push(this.current);
    this.current = new EpochKeys(this.core, ratchet, this.keyExpiryMs);
  }

  /**
   * Decrypts src[0, length) into dst (which may be src). Returns the media frame's length or a
   * negative CoreError (BadFrame, TooShort, AuthFailed, Replayed, NoKey). The silence frame
   * passes through.
   */
  decrypt(src: Uint8Array, length: number, dst: Uint8Array): number {
    if (!(length >= 0 && length <= src.length)) return CoreError.TooLong;
    const core = this.core;
    const exports = core.exports;
    const io = this.io;
    io.prepare(src, length, dst);
    // Parse first to learn the nonce and so the key.
    const parsed = exports.daveParse(io.src, length);
    if (parsed < 0) return parsed;
    if (parsed === 1) {
      if (dst.length < 3) return CoreError.NoRoom;
      if (dst !== src) dst.set(src.subarray(0, 3));
      return 3;
    }
    const nonce = core.result(0) >>> 0;
    const now = this.now();
    if (this.previous.length > 0 && this.previous[0]!.expiresAt <= now) {
      this.previous = this.previous.filter((epoch) => {
        if (epoch.expiresAt > now) return true;
        epoch.destroy();
        return false;
      });
    }
    let result: number = this.tryEpoch(this.current, nonce, length, now);
    // A frame sent just before a transition: try the previous epochs, newest first.
    for (let i = this.previous.length - 1; i >= 0 && (result === CoreError.AuthFailed || result === CoreError.NoKey); i--) {
      result = this.tryEpoch(this.previous[i]!, nonce, length, now);
    }
    if (result >= 0) this.lastNonce = nonce;
    return io.finish(dst, result);
  }

  private tryEpoch(epoch: EpochKeys, nonce: number, length: number, now: number): number {
    const extended = epoch.extend(nonce);
    if (epoch.isReplay(extended)) return CoreError.Replayed;
    const generation = Math.floor(extended / 2 ** 24);
    const aead = epoch.keyFor(generation, now);
    if (!aead) return CoreError.NoKey;
    const io = this.io;
    const result = this.core.exports.daveDecrypt(aead.context, io.src, length, io.dst, io.cap);
    if (result >= 0) {
      epoch.markSeen(extended);
      epoch.confirm(generation, now);
    }
    return result;
  }

  /** Frees its keys and memory in the core. */
  destroy(): void {
    this.current.destroy();
    for (const epoch of this.previous) epoch.destroy();
    this.previous = [];
    this.io.free();
  }
}
