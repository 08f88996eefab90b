import { beforeAll, describe, expect, it } from 'vitest';
import { CoreError, Rtp, VoiceCore, nextSeq, nextTimestamp, seqDelta, timestampDelta, type RtpHeader } from '../src/index.ts';
import { toHex } from './helpers.ts';

let rtp: Rtp;
let core: VoiceCore;
beforeAll(async () => {
  core = await VoiceCore.create({ poolBytes: 256 << 10 });
  rtp = new Rtp(core);
});

describe('RTP header', () => {
  it('builds the voice header of protocols.md 3.6', () => {
    const packet = new Uint8Array(12);
    expect(rtp.writeHeader(packet, { sequence: 0x1234, timestamp: 0xdeadbeef, ssrc: 0xcafebabe })).toBe(12);
    expect(toHex(packet)).toBe('80781234deadbeefcafebabe');
    expect(rtp.writeHeader(packet, { sequence: 65536 + 5, timestamp: 2 ** 32 + 7, ssrc: 1, marker: true, payloadType: 0x6f })).toBe(12);
    expect(toHex(packet)).toBe('80ef00050000000700000001');
    expect(rtp.writeHeader(new Uint8Array(11), { sequence: 1, timestamp: 1, ssrc: 1 })).toBe(CoreError.NoRoom);
  });

  it('builds headers with CSRCs, an extension preamble and padding, and parses them back', () => {
    for (const owned of [false, true]) {
      const packet = owned ? core.alloc(128).bytes : new Uint8Array(128);
      const at = rtp.writeHeader(packet, {
        sequence: 65535,
        timestamp: 0xfffffff0,
        ssrc: 0x01020304,
        marker: true,
        csrcs: [0xaabbccdd, 7],
        extension: { profile: 0xbede, words: 2 },
      });
      expect(at).toBe(12 + 8 + 4);
      expect(toHex(packet.subarray(0, at))).toBe('92f8fffffffffff001020304aabbccdd00000007bede0002');
      packet.fill(0x11, at, at + 8); // extension body
      packet.fill(0x22, at + 8, at + 18); // payload
      const length = rtp.addPadding(packet, at + 18, 6);
      expect(length).toBe(at + 24);
      expect(packet[length - 1]).toBe(6);
      const h = rtp.parse(packet, length) as RtpHeader;
      expect(h).toMatchObject({ padding: true, extension: true, csrcCount: 2, marker: true, sequence: 65535, timestamp: 0xfffffff0, ssrc: 0x01020304, rtpsizeHeaderLength: 24, extensionProfile: 0xbede, extensionWords: 2 });
    }
    expect(rtp.writeHeader(new Uint8Array(64), { sequence: 1, timestamp: 1, ssrc: 1, csrcs: new Array(16).fill(1) })).toBe(CoreError.BadArgument);
    expect(rtp.writeHeader(new Uint8Array(20), { sequence: 1, timestamp: 1, ssrc: 1, extension: { profile: 1, words: 2 } })).toBe(CoreError.NoRoom);
    expect(rtp.addPadding(new Uint8Array(20), 12, 9)).toBe(CoreError.NoRoom);
    expect(rtp.addPadding(new Uint8Array(20), 12, 0)).toBe(CoreError.BadArgument);
  });

  it('writes in place in core memory', () => {
    const buf = core.alloc(64).bytes;
    expect(rtp.writeHeader(buf, { sequence: 1, timestamp: 2, ssrc: 3 })).toBe(12);
    expect(toHex(buf.subarray(0, 12))).toBe('807800010000000200000003');
  });

  it('parses version, padding, extension, CSRC count, marker, sequence, timestamp, SSRC', () => {
    const packet = Uint8Array.from([
      0xb2, 0xf8, 0xff, 0xff, 0x80, 0, 0, 1, 0x12, 0x34, 0x56, 0x78, // V=2 P X CC=2, M, PT=120
      1, 1, 1, 1, 2, 2, 2, 2, // CSRCs
      0xbe, 0xde, 0x00, 0x02, // extension preamble: 2 words
      9, 9, 9, 9, 9, 9, 9, 9, 0xaa, 0xbb, 2,
    ]);
    const h = rtp.parse(packet) as RtpHeader;
    expect(h).toEqual({
      version: 2,
      padding: true,
      extension: true,
      csrcCount: 2,
      marker: true,
      payloadType: 0x78,
      sequence: 0xffff,
      timestamp: 0x80000001,
      ssrc: 0x12345678,
      rtpsizeHeaderLength: 24,
      extensionProfile: 0xbede,
      extensionWords: 2,
    });
    const plain = rtp.parse(Uint8Array.from([0x80, 0x78, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3])) as RtpHeader;
    expect(plain.rtpsizeHeaderLength).toBe(12);
    expect(plain.extensionProfile).toBe(-1);
  });

  it('rejects short packets and other versions', () => {
    expect(rtp.parse(new Uint8Array(11).fill(0x80))).toBe(CoreError.TooShort);
    expect(rtp.parse(Uint8Array.from([0x40, ...new Array(11).fill(0)]))).toBe(CoreError.BadVersion);
    // CC = 15 needs 72 bytes of header.
    expect(rtp.parse(Uint8Array.from([0x8f, ...new Array(30).fill(0)]))).toBe(CoreError.TooShort);
    expect(rtp.parse(Uint8Array.from([0x90, ...new Array(12).fill(0)]))).toBe(CoreError.TooShort);
  });
});

describe('sequence and timestamp wrap-around', () => {
  it('seqDelta is signed across the 16-bit wrap', () => {
    expect(seqDelta(65535, 0)).toBe(1);
    expect(seqDelta(0, 65535)).toBe(-1);
    expect(seqDelta(65000, 100)).toBe(636);
    expect(seqDelta(5, 5)).toBe(0);
    expect(seqDelta(0, 32767)).toBe(32767);
    expect(seqDelta(0, 32768)).toBe(-32768);
    for (const [a, b] of [[65535, 0], [0, 65535], [12, 40000], [40000, 12]] as const) {
      expect(core.exports.seqDelta(a, b)).toBe(seqDelta(a, b));
    }
  });

  it('timestampDelta is signed across the 32-bit wrap', () => {
    expect(timestampDelta(0xffffff00, 0x40)).toBe(0x140);
    expect(timestampDelta(0x40, 0xffffff00)).toBe(-0x140);
    expect(core.exports.timestampDelta(0xffffff00, 0x40)).toBe(0x140);
  });

  it('nextSeq and nextTimestamp wrap', () => {
    expect(nextSeq(65535)).toBe(0);
    expect(nextTimestamp(0xfffffe00)).toBe(0x1c0);
    expect(nextTimestamp(10, 5)).toBe(15);
  });
});
