import { CoreError } from '../enums.ts';
import type { VoiceCore } from '../VoiceCore.ts';

/** Opus over RTP as the voice protocol sends it (protocols.md 3.6). */
export const RTP_OPUS_PAYLOAD_TYPE = 0x78;
/** Timestamp step of one 20 ms frame at 48 kHz. */
export const RTP_OPUS_FRAME_TICKS = 960;

export interface RtpHeader {
  version: number;
  padding: boolean;
  extension: boolean;
  csrcCount: number;
  marker: boolean;
  payloadType: number;
  sequence: number;
  timestamp: number;
  ssrc: number;
  /** Bytes left unencrypted by the `*_rtpsize` modes: 12 + 4 * CC (+ 4 with an extension). */
  rtpsizeHeaderLength: number;
  /** Extension profile (e.g. 0xBEDE) or -1; its body may still be encrypted. */
  extensionProfile: number;
  /** Extension body length in 32-bit words. */
  extensionWords: number;
}

export interface RtpHeaderFields {
  sequence: number;
  timestamp: number;
  ssrc: number;
  payloadType?: number;
  marker?: boolean;
}

/**
 * RTP header build and parse in core.wasm (assembly/voice/rtp.ts). The `*At` methods work on
 * core memory addresses (no copies); the others accept any Uint8Array.
 */
export class Rtp {
  constructor(readonly core: VoiceCore) {}

  /** Writes a 12-byte header (V=2, no padding, extension or CSRC) at packet[0..12); returns 12 or NoRoom. */
  writeHeader(packet: Uint8Array, fields: RtpHeaderFields): number {
    const { core } = this;
    const owned = core.owns(packet);
    const at = owned ? packet.byteOffset : core.scratchAddress(12);
    const result = core.exports.rtpWriteHeader(
      at,
      owned ? packet.length : Math.min(packet.length, 12),
      fields.marker ? 1 : 0,
      fields.payloadType ?? RTP_OPUS_PAYLOAD_TYPE,
      fields.sequence & 0xffff,
      fields.timestamp >>> 0,
      fields.ssrc >>> 0,
    );
    if (result > 0 && !owned) packet.set(core.bytes.subarray(at, at + 12));
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

