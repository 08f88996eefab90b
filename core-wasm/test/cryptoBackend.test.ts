// One contract suite for every CryptoBackend (DESIGN.md convention 5): core-wasm and
// node:crypto. Transport packets are checked byte for byte against protocols.md 3.7 as built
// by the reference implementations (node:crypto AES-GCM; libsodium XChaCha20-Poly1305, as
// discord.js uses it).
import { createCipheriv } from 'node:crypto';
import sodium from 'libsodium-wrappers';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AeadAlgorithm,
  CoreCryptoBackend,
  CoreError,
  DEPRECATED_TRANSPORT_MODES,
  NodeCryptoBackend,
  TRANSPORT_OVERHEAD,
  TransportMode,
  VoiceCore,
  type CryptoBackend,
  type TransportMode as Mode,
} from '../src/index.ts';
import { prng, toHex } from './helpers.ts';

const backends: Record<string, () => Promise<CryptoBackend>> = {
  'core-wasm': () => CoreCryptoBackend.create({ poolBytes: 1 << 20 }),
  'node:crypto': () => NodeCryptoBackend.create(),
};
const MODES: Mode[] = [TransportMode.Aes256GcmRtpsize, TransportMode.XChaCha20Poly1305Rtpsize];

beforeAll(async () => {
  await sodium.ready;
});

interface PacketSpec {
  csrc?: number;
  extensionWords?: number;
  padding?: number;
  payload: number;
}

/** An RTP packet (header, optional CSRCs, extension, payload, padding) and where its media is. */
function buildPacket(rnd: (n: number) => Uint8Array, spec: PacketSpec): { packet: Uint8Array; aadLength: number; frame: Uint8Array } {
  const cc = spec.csrc ?? 0;
  const ext = spec.extensionWords;
  const pad = spec.padding ?? 0;
  const aadLength = 12 + 4 * cc + (ext !== undefined ? 4 : 0);
  const extBody = ext !== undefined ? rnd(ext * 4) : new Uint8Array(0);
  const frame = rnd(spec.payload);
  const length = aadLength + extBody.length + frame.length + pad;
  const packet = new Uint8Array(length);
  packet[0] = 0x80 | (pad ? 0x20 : 0) | (ext !== undefined ? 0x10 : 0) | cc;
  packet[1] = 0x78;
  packet.set(rnd(10), 2);
  packet.set(rnd(4 * cc), 12);
  if (ext !== undefined) {
    packet[12 + 4 * cc] = 0xbe;
    packet[13 + 4 * cc] = 0xde;
    packet[14 + 4 * cc] = ext >> 8;
    packet[15 + 4 * cc] = ext & 0xff;
  }
  packet.set(extBody, aadLength);
  packet.set(frame, aadLength + extBody.length);
  if (pad) packet[length - 1] = pad;
  return { packet, aadLength, frame };
}

/** The packet exactly as protocols.md 3.7 describes it, built with the reference libraries. */
function referenceSeal(mode: Mode, key: Uint8Array, packet: Uint8Array, aadLength: number, nonce: number): Uint8Array {
  const header = packet.subarray(0, aadLength);
  const body = packet.subarray(aadLength);
  const suffix = new Uint8Array(4);
  new DataView(suffix.buffer).setUint32(0, nonce, false);
  let sealed: Uint8Array;
  if (mode === TransportMode.Aes256GcmRtpsize) {
    const iv = new Uint8Array(12);
    iv.set(suffix);
    const c = createCipheriv('aes-256-gcm', key, iv);
    c.setAAD(header);
    sealed = Buffer.concat([c.update(body), c.final(), c.getAuthTag()]);
  } else {
    const iv = new Uint8Array(24);
    iv.set(suffix);
    sealed = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(body, header, null, iv, key);
  }
  return Uint8Array.from([...header, ...sealed, ...suffix]);
}

describe.each(Object.keys(backends))('CryptoBackend contract: %s', (backendName) => {
  let backend: CryptoBackend;
  let others: CryptoBackend[];
  beforeAll(async () => {
    backend = await backends[backendName]!();
    others = await Promise.all(Object.values(backends).map((make) => make()));
  });

  describe.each(MODES)('%s', (mode) => {
    const specs: PacketSpec[] = [
      { payload: 160 },
      { payload: 0 },
      { payload: 1 },
      { payload: 1275 },
      { csrc: 2, payload: 57 },
      { extensionWords: 1, payload: 100 },
      { extensionWords: 0, payload: 20 },
      { csrc: 15, extensionWords: 3, payload: 33, padding: 7 },
      { padding: 1, payload: 160 },
    ];

    it.each(specs.map((s) => [JSON.stringify(s), s] as const))('seals byte-exact to the reference and opens %s', (_n, spec) => {
      const rnd = prng(JSON.stringify(spec).length * 31 + mode.length);
      const key = rnd(32);
      const { packet, aadLength, frame } = buildPacket(rnd, spec);
      const nonce = 0xfffffff0 + (spec.payload % 16);
      const expected = referenceSeal(mode, key, packet, aadLength, nonce);
      const cipher = backend.createTransportCipher(mode, key);
      const buffer = backend.allocate(packet.length + TRANSPORT_OVERHEAD + 8);
      buffer.set(packet);
      const sealedLength = cipher.seal(buffer, packet.length, nonce);
      expect(sealedLength).toBe(packet.length + TRANSPORT_OVERHEAD);
      expect(toHex(buffer.subarray(0, sealedLength))).toBe(toHex(expected));
      // Every backend opens it.
      for (const other of others) {
        const receiver = other.createTransportCipher(mode, key);
        const copy = other.allocate(sealedLength);
        copy.set(expected);
        const n = receiver.open(copy, sealedLength);
        expect(n, other.name).toBe(frame.length);
        expect(toHex(copy.subarray(receiver.frameOffset, receiver.frameOffset + n))).toBe(toHex(frame));
        expect(receiver.lastNonce).toBe(nonce);
        receiver.destroy();
      }
      cipher.destroy();
    });

    it('counts nonces from 1 and wraps after 2^32 - 1', () => {
      const rnd = prng(3);
      const key = rnd(32);
      const cipher = backend.createTransportCipher(mode, key);
      const receiver = backend.createTransportCipher(mode, key);
      const { packet } = buildPacket(rnd, { payload: 10 });
      const buf = backend.allocate(64);
      for (const expected of [1, 2, 3]) {
        buf.set(packet);
        const n = cipher.seal(buf, packet.length);
        expect(receiver.open(buf, n)).toBe(10);
        expect(receiver.lastNonce).toBe(expected);
      }
      buf.set(packet);
      const n = cipher.seal(buf, packet.length, 0xffffffff);
      expect(toHex(buf.subarray(n - 4, n))).toBe('ffffffff');
      cipher.destroy();
      receiver.destroy();
    });

    it('rejects every single-bit flip of header, ciphertext, tag and nonce', () => {
      const rnd = prng(11 + mode.length);
      const key = rnd(32);
      const sender = backend.createTransportCipher(mode, key);
      const receiver = backend.createTransportCipher(mode, key);
      const { packet } = buildPacket(rnd, { csrc: 1, extensionWords: 1, payload: 24 });
      const sealed = backend.allocate(packet.length + TRANSPORT_OVERHEAD);
      sealed.set(packet);
      const n = sender.seal(sealed, packet.length, 77);
      const original = sealed.slice(0, n);
      const work = backend.allocate(n);
      for (let bit = 0; bit < n * 8; bit++) {
        work.set(original);
        work[bit >> 3]! ^= 1 << (bit & 7);
        const result = receiver.open(work, n);
        expect(result, `bit ${bit}`).toBeLessThan(0);
      }
      work.set(original);
      expect(receiver.open(work, n)).toBe(24);
      sender.destroy();
      receiver.destroy();
    });

    it('rejects truncated and oversized packets with an error code, never a throw', () => {
      const rnd = prng(17);
      const key = rnd(32);
      const sender = backend.createTransportCipher(mode, key);
      const receiver = backend.createTransportCipher(mode, key);
      const { packet } = buildPacket(rnd, { extensionWords: 2, payload: 30 });
      const sealed = backend.allocate(packet.length + TRANSPORT_OVERHEAD);
      sealed.set(packet);
      const n = sender.seal(sealed, packet.length, 5);
      const original = sealed.slice(0, n);
      const work = backend.allocate(n);
      for (let len = 0; len < n; len++) {
        work.set(original);
        expect(receiver.open(work, len), `length ${len}`).toBeLessThan(0);
      }
      // Longer than the buffer, or than any packet.
      expect(receiver.open(work, n + 1)).toBe(CoreError.TooLong);
      const huge = backend.allocate(70000);
      expect(receiver.open(huge, 70000)).toBe(CoreError.TooLong);
      // Sealing: no room for tag and nonce, over-long, or not RTP v2.
      const small = backend.allocate(40);
      small.set(packet.subarray(0, 12));
      expect(sender.seal(small, 30)).toBe(CoreError.NoRoom);
      expect(sender.seal(huge, 65530)).toBe(CoreError.TooLong);
      const bad = backend.allocate(64);
      bad[0] = 0x40;
      expect(sender.seal(bad, 20)).toBe(CoreError.BadVersion);
      expect(sender.seal(bad, 5)).toBe(CoreError.TooShort);
      sender.destroy();
      receiver.destroy();
    });

    it('rejects bad padding and extension lengths after authentication', () => {
      const rnd = prng(23);
      const key = rnd(32);
      const sender = backend.createTransportCipher(mode, key);
      const receiver = backend.createTransportCipher(mode, key);
      // Padding byte 0, padding longer than the payload, extension longer than the payload.
      const cases: [Uint8Array, CoreError][] = [];
      const p1 = buildPacket(rnd, { payload: 10, padding: 1 }).packet;
      p1[p1.length - 1] = 0;
      cases.push([p1, CoreError.BadPadding]);
      const p2 = buildPacket(rnd, { payload: 3, padding: 1 }).packet;
      p2[p2.length - 1] = 200;
      cases.push([p2, CoreError.BadPadding]);
      const p3 = buildPacket(rnd, { payload: 3, extensionWords: 1 }).packet;
      p3[15] = 9;
      cases.push([p3, CoreError.BadExtension]);
      for (const [packet, error] of cases) {
        const buf = backend.allocate(packet.length + TRANSPORT_OVERHEAD);
        buf.set(packet);
        const n = sender.seal(buf, packet.length);
        expect(receiver.open(buf, n)).toBe(error);
      }
      sender.destroy();
      receiver.destroy();
    });
  });

  it('refuses the deprecated xsalsa20 family and unknown modes', () => {
    for (const mode of [...DEPRECATED_TRANSPORT_MODES, 'nope']) {
      expect(() => backend.createTransportCipher(mode as Mode, new Uint8Array(32))).toThrow(RangeError);
    }
    expect(() => backend.createTransportCipher(TransportMode.Aes256GcmRtpsize, new Uint8Array(16))).toThrow(RangeError);
  });

  it.each([AeadAlgorithm.Aes256Gcm, AeadAlgorithm.XChaCha20Poly1305, AeadAlgorithm.ChaCha20Poly1305, AeadAlgorithm.Aes128Gcm])(
    'raw AEAD %i agrees with every other backend',
    (algorithm) => {
      const rnd = prng(algorithm * 13);
      const key = rnd(algorithm === AeadAlgorithm.Aes128Gcm ? 16 : 32);
      const nonce = rnd(algorithm === AeadAlgorithm.XChaCha20Poly1305 ? 24 : 12);
      const ad = rnd(9);
      const ours = backend.createAead(algorithm, key);
      for (const length of [0, 1, 160, 300, 4097]) {
        const msg = rnd(length);
        const sealed = ours.encrypt(nonce, msg, ad);
        expect(sealed.length).toBe(length + 16);
        for (const other of others) {
          const theirs = other.createAead(algorithm, key);
          expect(toHex(theirs.encrypt(nonce, msg, ad))).toBe(toHex(sealed));
          expect(theirs.decrypt(nonce, sealed, ad)).toEqual(msg);
          sealed[0] = (sealed[0] ?? 0) ^ (length ? 1 : 0);
          if (length) expect(theirs.decrypt(nonce, sealed, ad)).toBeNull();
          sealed[0] = (sealed[0] ?? 0) ^ (length ? 1 : 0);
          theirs.destroy();
        }
      }
      ours.destroy();
    },
  );
});

describe('core-wasm transport specifics', () => {
  it('works in place on allocate() buffers without growing memory', async () => {
    const core = await VoiceCore.create({ poolBytes: 1 << 20 });
    const backend = CoreCryptoBackend.over(core);
    const before = core.exports.memory.buffer;
    const cipher = backend.createTransportCipher(TransportMode.XChaCha20Poly1305Rtpsize, new Uint8Array(32).fill(1));
    const packet = backend.allocate(1500);
    expect(core.owns(packet)).toBe(true);
    packet.set([0x80, 0x78, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3]);
    for (let i = 0; i < 1000; i++) {
      const n = cipher.seal(packet, 172);
      expect(cipher.open(packet, n)).toBe(160);
    }
    expect(core.exports.memory.buffer).toBe(before);
  });

  it('never reads past the end of memory on truncated packets', async () => {
    // A dedicated instance: the packet is placed in the last bytes of linear memory, so any
    // read beyond its length would trap instead of passing silently.
    const core = await VoiceCore.create({ poolBytes: 64 << 10 });
    const backend = CoreCryptoBackend.over(core);
    const rnd = prng(99);
    for (const mode of MODES) {
      const key = rnd(32);
      const cipher = backend.createTransportCipher(mode, key);
      const { packet } = buildPacket(rnd, { csrc: 3, extensionWords: 2, payload: 40, padding: 2 });
      const sealed = backend.allocate(packet.length + TRANSPORT_OVERHEAD);
      sealed.set(packet);
      const n = cipher.seal(sealed, packet.length, 1);
      const original = sealed.slice(0, n);
      const memory = core.exports.memory.buffer;
      for (let len = 0; len <= n; len++) {
        const tail = new Uint8Array(memory, memory.byteLength - len, len);
        tail.set(original.subarray(0, len));
        const result = cipher.open(tail, len);
        if (len === n) expect(result).toBe(40);
        else expect(result).toBeLessThan(0);
      }
    }
  });
});

describe('core-wasm backend pool', () => {
  it('opens a further instance instead of growing memory under earlier buffers', async () => {
    const backend = await CoreCryptoBackend.create({ poolBytes: 256 << 10 });
    const firstMemory = backend.core.exports.memory.buffer;
    const key = new Uint8Array(32).fill(7);
    const pairs: { cipher: ReturnType<CryptoBackend['createTransportCipher']>; buffer: Uint8Array }[] = [];
    for (let i = 0; i < 120; i++) {
      pairs.push({ cipher: backend.createTransportCipher(TransportMode.Aes256GcmRtpsize, key), buffer: backend.allocate(1600) });
    }
    expect(backend.instances).toBeGreaterThan(1);
    // The first instance's memory never grew, so none of the early views is detached.
    expect(pairs[0]!.buffer.buffer).toBe(firstMemory);
    const receiver = backend.createTransportCipher(TransportMode.Aes256GcmRtpsize, key);
    for (const { cipher, buffer } of [pairs[0]!, pairs[119]!, { cipher: pairs[0]!.cipher, buffer: pairs[119]!.buffer }]) {
      expect(buffer.length).toBe(1600);
      buffer.set([0x80, 0x78, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3]);
      const n = cipher.seal(buffer, 172);
      expect(n).toBe(192);
      expect(receiver.open(buffer, n)).toBe(160);
    }
  });
});
