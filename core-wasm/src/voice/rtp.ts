import { CoreError } from '../enums.ts';
import type { VoiceCore } from '../VoiceCore.ts';

/** Opus over RTP as the voice protocol sends it (protocols.md 3.6). */
export const RTP_OPUS_PAYLOAD_TYPE = 0x78;
/** Timestamp step of one 20 ms frame at 48 kHz. */
export const RTP_OPUS_FRAME_TICKS = 960;

/** A parsed RTP header (RFC 3550) of a voice packet. */
export interface RtpHeader {
  /** RTP version (2). */
  version: number;
  /** The padding bit. */
  padding: boolean;
  /** The extension bit. */
  extension: boolean;
  /** How many CSRC identifiers follow the fixed header. */
  csrcCount: number;
  /** The marker bit. */
  marker: boolean;
  /** The payload type (0x78 for Opus here). */
  payloadType: number;
  /** The sequence number (16 bits). */
  sequence: number;
  /** The RTP timestamp (48 kHz ticks). */
  timestamp: number;
  /** The sender's synchronization source. */
  ssrc: number;
  /** Bytes left unencrypted by the `*_rtpsize` modes: 12 + 4 * CC (+ 4 with an extension). */
  rtpsizeHeaderLength: number;
  /** Extension profile (e.g. 0xBEDE) or -1; its body may still be encrypted. */
  extensionProfile: number;
  /** Extension body length in 32-bit words. */
  extensionWords: number;
}

/** The fields to write an RTP header from. */
export interface RtpHeaderFields {
  /** The sequence number (16 bits). */
  sequence: number;
  /** The RTP timestamp (48 kHz ticks). */
  timestamp: number;
  /** The sender's synchronization source. */
  ssrc: number;
  /** The payload type (default Opus, 0x78). */
  payloadType?: number;
  /** The marker bit. */
  marker?: boolean;
  /** Contributing sources (at most 15). */
  csrcs?: readonly number[];
  /** Header extension: profile (e.g. 0xBEDE) and body length in 32-bit words; the body is the caller's to write. */
  extension?: {
    /** The extension's profile (16 bits). */
    profile: number;
    /** Its length in 32-bit words. */
    words: number;
  };
}

/**
 * RTP header build and parse in core.wasm (assembly/voice/rtp.ts). The `*At` methods work on
 * core memory addresses (no copies); the others accept any Uint8Array.
 */
export class Rtp {
  /** Reads and writes RTP headers in `core`'s memory. */
  constructor(
    /** The core whose memory holds the packets. */
    readonly core: VoiceCore,
  ) {}

  /**
   * Writes the header at packet[0..): 12 bytes, CSRCs, extension preamble. Returns the offset
   * of the extension body (or of the payload when there is none), or a negative CoreError.
   */
  writeHeader(packet: Uint8Array, fields: RtpHeaderFields): number {
    const { core } = this;
    const csrcs = fields.csrcs ?? [];
    const ext = fields.extension;
    const size = 12 + 4 * csrcs.length + (ext ? 4 + ext.words * 4 : 0);
    if (csrcs.length > 15) return CoreError.BadArgument;
    const owned = core.owns(packet);
    // Work in scratch unless the packet is in core memory; the CSRC list goes to scratch too.
    const at = owned ? packet.byteOffset : core.scratchAddress(size + 64);
    const list = owned ? core.scratchAddress(64) : at + size;
    const view = core.view;
    csrcs.forEach((c, i) => view.setUint32(list + 4 * i, c >>> 0, true));
    const result = core.exports.rtpWriteHeaderFull(
      at,
      owned ? packet.length : Math.min(packet.length, size),
      fields.marker ? 1 : 0,
      fields.payloadType ?? RTP_OPUS_PAYLOAD_TYPE,
      fields.sequence & 0xffff,
      fields.timestamp >>> 0,
      fields.ssrc >>> 0,
      list,
      csrcs.length,
      ext ? ext.profile : -1,
      ext ? ext.words : 0,
    );
    if (result > 0 && !owned) packet.set(core.bytes.subarray(at, at + result));
    return result;
  }

  /** Appends `count` padding bytes to packet[0, length) and sets P; returns the new length or a CoreError. */
  addPadding(packet: Uint8Array, length: number, count: number): number {
    const { core } = this;
    if (core.owns(packet)) return core.exports.rtpAddPadding(packet.byteOffset, length, packet.length, count);
    if (length + count > packet.length) return CoreError.NoRoom;
    const at = core.scratchAddress(length + count);
    core.bytes.set(packet.subarray(0, length), at);
    const result = core.exports.rtpAddPadding(at, length, length + count, count);
    if (result > 0) packet.set(core.bytes.subarray(at, at + result));
    return result;
  }

  /** Parses the header of packet[0, length); a negative CoreError when it is not a valid RTP v2 header. */
  parse(packet: Uint8Array, length = packet.length): RtpHeader | CoreError {
    const { core } = this;
    let at: number;
    if (core.owns(packet)) at = packet.byteOffset;
    else {
      const n = Math.min(length, 12 + 60 + 4);
      at = core.scratchAddress(n);
      core.bytes.set(packet.subarray(0, n), at);
      length = Math.min(length, n);
    }
    const n = core.exports.rtpParse(at, Math.min(length, packet.length));
    if (n < 0) return n as CoreError;
    const b0 = core.result(0);
    return {
      version: b0 >> 6,
      padding: (b0 & 0x20) !== 0,
      extension: (b0 & 0x10) !== 0,
      csrcCount: core.result(6),
      marker: core.result(1) === 1,
      payloadType: core.result(2),
      sequence: core.result(3),
      timestamp: core.result(4) >>> 0,
      ssrc: core.result(5) >>> 0,
      rtpsizeHeaderLength: n,
      extensionProfile: core.result(7),
      extensionWords: core.result(8),
    };
  }
}

/** Signed distance b - a of 16-bit RTP sequence numbers across the wrap (-32768..32767). */
export function seqDelta(a: number, b: number): number {
  return (((b - a) << 16) >> 16);
}

/** Signed distance b - a of 32-bit RTP timestamps across the wrap. */
export function timestampDelta(a: number, b: number): number {
  return (b - a) | 0;
}

/** The sequence number after `seq` (wraps at 2^16). */
export function nextSeq(seq: number, step = 1): number {
  return (seq + step) & 0xffff;
}

/** The timestamp `ticks` after `timestamp` (wraps at 2^32). */
export function nextTimestamp(timestamp: number, ticks = RTP_OPUS_FRAME_TICKS): number {
  return (timestamp + ticks) >>> 0;
}

