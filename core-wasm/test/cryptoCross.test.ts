// Randomized cross-checks against node:crypto, @noble/ciphers and libsodium in both directions
// (they encrypt, we decrypt; we encrypt, they decrypt), and single-bit-flip rejection at the
// AEAD level (ciphertext, tag, additional data, nonce).
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { chacha20poly1305, xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { gcm } from '@noble/ciphers/aes.js';
import sodium from 'libsodium-wrappers';
import { beforeAll, describe, expect, it } from 'vitest';
import { AeadAlgorithm, CoreAead, VoiceCore } from '../src/index.ts';
import { prng, toHex } from './helpers.ts';

let core: VoiceCore;
beforeAll(async () => {
  core = await VoiceCore.create({ poolBytes: 2 << 20 });
  await sodium.ready;
});

type Peer = {
  name: string;
  encrypt(key: Uint8Array, nonce: Uint8Array, ad: Uint8Array, msg: Uint8Array): Uint8Array;
  decrypt(key: Uint8Array, nonce: Uint8Array, ad: Uint8Array, sealed: Uint8Array): Uint8Array | null;
};

function nodePeer(cipher: 'aes-256-gcm' | 'aes-128-gcm' | 'chacha20-poly1305'): Peer {
  return {
    name: `node:crypto ${cipher}`,
    encrypt(key, nonce, ad, msg) {
      const c = createCipheriv(cipher as 'chacha20-poly1305', key, nonce, { authTagLength: 16 });
      c.setAAD(ad, { plaintextLength: msg.length });
      return new Uint8Array(Buffer.concat([c.update(msg), c.final(), c.getAuthTag()]));
    },
    decrypt(key, nonce, ad, sealed) {
      const d = createDecipheriv(cipher as 'chacha20-poly1305', key, nonce, { authTagLength: 16 });
      d.setAAD(ad, { plaintextLength: sealed.length - 16 });
      d.setAuthTag(sealed.subarray(sealed.length - 16));
      const out = d.update(sealed.subarray(0, sealed.length - 16));
      try {
        d.final();
      } catch {
        return null;
      }
      return new Uint8Array(out);
    },
  };
}

function noblePeer(name: string, make: (key: Uint8Array, nonce: Uint8Array, ad: Uint8Array) => { encrypt(m: Uint8Array): Uint8Array; decrypt(c: Uint8Array): Uint8Array }): Peer {
  return {
    name: `@noble/ciphers ${name}`,
    encrypt: (key, nonce, ad, msg) => make(key, nonce, ad).encrypt(msg),
    decrypt(key, nonce, ad, sealed) {
      try {
        return make(key, nonce, ad).decrypt(sealed);
      } catch {
        return null;
      }
    },
  };
}

const sodiumPeer: Peer = {
  name: 'libsodium xchacha20poly1305_ietf',
  encrypt: (key, nonce, ad, msg) => sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(msg, ad, null, nonce, key),
  decrypt(key, nonce, ad, sealed) {
    try {
      return sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(null, sealed, ad, nonce, key);
    } catch {
      return null;
    }
  },
};

const suites: [AeadAlgorithm, number, Peer[]][] = [
  [AeadAlgorithm.Aes256Gcm, 32, [nodePeer('aes-256-gcm'), noblePeer('gcm', gcm)]],
  [AeadAlgorithm.Aes128Gcm, 16, [nodePeer('aes-128-gcm'), noblePeer('gcm', gcm)]],
  [AeadAlgorithm.ChaCha20Poly1305, 32, [nodePeer('chacha20-poly1305'), noblePeer('chacha20poly1305', chacha20poly1305)]],
  [AeadAlgorithm.XChaCha20Poly1305, 32, [noblePeer('xchacha20poly1305', xchacha20poly1305), sodiumPeer]],
];

// Lengths around block and chunk edges (16, 64, 192, 256) plus a few random and large ones.
const LENGTHS = [0, 1, 15, 16, 17, 31, 63, 64, 65, 159, 160, 161, 191, 192, 193, 255, 256, 257, 511, 1000, 1500, 4064, 4096, 4111, 8213, 65536];

describe.each(suites)('AEAD %i cross-checks', (algorithm, keyLength, peers) => {
  const nonceLength = algorithm === AeadAlgorithm.XChaCha20Poly1305 ? 24 : 12;

  it.each(peers.map((p) => [p.name, p] as const))('round trips with %s in both directions', (_name, peer) => {
    const rnd = prng(algorithm * 7919 + peer.name.length);
    const lengths = [...LENGTHS, ...Array.from({ length: 20 }, () => rnd(2)[0]! * 3)];
    for (const length of lengths) {
      const key = rnd(keyLength);
      const nonce = rnd(nonceLength);
      const ad = rnd(rnd(1)[0]! % 41);
      const msg = rnd(length);
      const ours = new CoreAead(core, algorithm, key);
      const sealed = ours.encrypt(nonce, msg, ad);
      // We encrypt, they decrypt (and agree byte for byte).
      expect(toHex(peer.decrypt(key, nonce, ad, sealed) ?? new Uint8Array([1, 2, 3]))).toBe(toHex(msg));
      // They encrypt, we decrypt.
      const theirs = peer.encrypt(key, nonce, ad, msg);
      expect(toHex(theirs)).toBe(toHex(sealed));
      expect(toHex(ours.decrypt(nonce, theirs, ad) ?? new Uint8Array([1, 2, 3]))).toBe(toHex(msg));
      ours.destroy();
    }
  });

  it('rejects every single-bit flip of ciphertext, tag, additional data and nonce', () => {
    const rnd = prng(algorithm);
    const key = rnd(keyLength);
    const nonce = rnd(nonceLength);
    const ad = rnd(12);
    const msg = rnd(40);
    const aead = new CoreAead(core, algorithm, key);
    const sealed = aead.encrypt(nonce, msg, ad);
    let rejected = 0;
    for (const [name, target] of [['sealed', sealed], ['ad', ad], ['nonce', nonce]] as const) {
      for (let bit = 0; bit < target.length * 8; bit++) {
        target[bit >> 3]! ^= 1 << (bit & 7);
        const out = aead.decrypt(nonce, sealed, ad);
        target[bit >> 3]! ^= 1 << (bit & 7);
        expect(out, `${name} bit ${bit}`).toBeNull();
        rejected++;
      }
    }
    expect(rejected).toBe((sealed.length + ad.length + nonce.length) * 8);
    expect(aead.decrypt(nonce, sealed, ad)).toEqual(msg);
    aead.destroy();
  });

  it('rejects truncated input and a wrong key', () => {
    const rnd = prng(algorithm + 99);
    const key = rnd(keyLength);
    const nonce = rnd(nonceLength);
    const aead = new CoreAead(core, algorithm, key);
    const sealed = aead.encrypt(nonce, rnd(50));
    for (let n = 0; n < sealed.length; n++) expect(aead.decrypt(nonce, sealed.subarray(0, n))).toBeNull();
    const other = new CoreAead(core, algorithm, rnd(keyLength));
    expect(other.decrypt(nonce, sealed)).toBeNull();
    aead.destroy();
    other.destroy();
  });
});

describe('zero-copy AEAD path', () => {
  it('seals and opens in place at caller-owned addresses', () => {
    const rnd = prng(5);
    const key = rnd(32);
    const aead = new CoreAead(core, AeadAlgorithm.XChaCha20Poly1305, key);
    const buf = core.alloc(24 + 12 + 160 + 16);
    const nonce = buf.address, ad = nonce + 24, data = ad + 12, tag = data + 160;
    const plain = rnd(160);
    buf.bytes.set(rnd(24), 0);
    buf.bytes.set(rnd(12), 24);
    buf.bytes.set(plain, 36);
    const memoryBefore = core.exports.memory.buffer.byteLength;
    aead.sealAt(nonce, ad, 12, data, 160, data, tag);
    const expected = xchacha20poly1305(key, buf.bytes.slice(0, 24), buf.bytes.slice(24, 36)).encrypt(plain);
    expect(toHex(buf.bytes.slice(36, 36 + 176))).toBe(toHex(expected));
    expect(aead.openAt(nonce, ad, 12, data, 160, data, tag)).toBe(true);
    expect(buf.bytes.slice(36, 196)).toEqual(plain);
    buf.bytes[40]! ^= 1;
    const before = buf.bytes.slice();
    expect(aead.openAt(nonce, ad, 12, data, 160, data, tag)).toBe(false);
    // A forged packet leaves the buffer untouched.
    expect(buf.bytes).toEqual(before);
    expect(core.exports.memory.buffer.byteLength).toBe(memoryBefore);
    aead.destroy();
    buf.free();
  });
});
