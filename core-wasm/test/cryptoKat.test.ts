// Known-answer tests: RFC 8439 (ChaCha20, Poly1305, AEAD), draft-irtf-cfrg-xchacha-03
// (HChaCha20, XChaCha20-Poly1305), the GCM specification's AES-GCM test cases (as used by
// NIST CAVP), SHA-256 (FIPS 180-2) and HKDF (RFC 5869). Each vector is also checked against an
// independent implementation, so a mistyped vector cannot pass silently.
import { createCipheriv, createHash, hkdfSync } from 'node:crypto';
import { chacha20 as nobleChacha20, xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { AeadAlgorithm, CoreAead, VoiceCore, hchacha20, hkdfExpand } from '../src/index.ts';
import { ascii, chacha20, hex, place, poly1305, toHex } from './helpers.ts';

const SUNSCREEN = ascii(
  "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.",
);
const KEY_00_1F = hex('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
const KEY_80_9F = hex('808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f');

let core: VoiceCore;
beforeAll(async () => {
  core = await VoiceCore.create({ poolBytes: 1 << 20 });
});

describe('RFC 8439', () => {
  it('2.4.2 ChaCha20 encryption', () => {
    const nonce = hex('000000000000004a00000000');
    const expected =
      '6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab77937365af90bbf74a35be6b40b8eedf2785e42874d';
    expect(toHex(chacha20(core, KEY_00_1F, nonce, 1, SUNSCREEN))).toBe(expected);
    expect(toHex(nobleChacha20(KEY_00_1F, nonce, SUNSCREEN, undefined, 1))).toBe(expected);
  });

  it('A.1 ChaCha20 block function: all-zero key, counters 0 and 1', () => {
    const zeros = new Uint8Array(128);
    const out = chacha20(core, new Uint8Array(32), new Uint8Array(12), 0, zeros);
    expect(toHex(out.subarray(0, 64))).toBe(
      '76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586',
    );
    expect(toHex(out.subarray(64))).toBe(
      '9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f',
    );
  });

  it('2.5.2 Poly1305', () => {
    const key = hex('85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b');
    expect(toHex(poly1305(core, key, ascii('Cryptographic Forum Research Group')))).toBe('a8061dc1305136c6c22b8baf0c0127a9');
  });

  it('A.3 Poly1305 edge cases (h >= p reduction, carries)', () => {
    // Test vectors 5-7 of A.3: R = 2, S = 0, messages that exercise the final reduction.
    const r2 = hex('0200000000000000000000000000000000000000000000000000000000000000');
    expect(toHex(poly1305(core, r2, hex('ffffffffffffffffffffffffffffffff')))).toBe('03000000000000000000000000000000');
    const rs = hex('02000000000000000000000000000000ffffffffffffffffffffffffffffffff');
    expect(toHex(poly1305(core, rs, hex('02000000000000000000000000000000')))).toBe('03000000000000000000000000000000');
    const r1 = hex('0100000000000000000000000000000000000000000000000000000000000000');
    expect(
      toHex(poly1305(core, r1, hex('fffffffffffffffffffffffffffffffff0ffffffffffffffffffffffffffffff11000000000000000000000000000000'))),
    ).toBe('05000000000000000000000000000000');
  });

  it('2.8.2 ChaCha20-Poly1305 AEAD', () => {
    const nonce = hex('070000004041424344454647');
    const aad = hex('50515253c0c1c2c3c4c5c6c7');
    const ct =
      'd31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b6116';
    const tag = '1ae10b594f09e26a7e902ecbd0600691';
    const aead = new CoreAead(core, AeadAlgorithm.ChaCha20Poly1305, KEY_80_9F);
    expect(toHex(aead.encrypt(nonce, SUNSCREEN, aad))).toBe(ct + tag);
    expect(aead.decrypt(nonce, hex(ct + tag), aad)).toEqual(SUNSCREEN);
    const c = createCipheriv('chacha20-poly1305', KEY_80_9F, nonce, { authTagLength: 16 });
    c.setAAD(aad, { plaintextLength: SUNSCREEN.length });
    expect(Buffer.concat([c.update(SUNSCREEN), c.final(), c.getAuthTag()]).toString('hex')).toBe(ct + tag);
    aead.destroy();
  });
});

describe('draft-irtf-cfrg-xchacha-03', () => {
  it('2.2.1 HChaCha20', () => {
    const nonce = hex('000000090000004a0000000031415927');
    expect(toHex(hchacha20(core, KEY_00_1F, nonce))).toBe('82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc');
  });

  it('A.3.1 XChaCha20-Poly1305', () => {
    const nonce = hex('404142434445464748494a4b4c4d4e4f5051525354555657');
    const aad = hex('50515253c0c1c2c3c4c5c6c7');
    const ct =
      'bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e';
    const tag = 'c0875924c1c7987947deafd8780acf49';
    const aead = new CoreAead(core, AeadAlgorithm.XChaCha20Poly1305, KEY_80_9F);
    expect(toHex(aead.encrypt(nonce, SUNSCREEN, aad))).toBe(ct + tag);
    expect(aead.decrypt(nonce, hex(ct + tag), aad)).toEqual(SUNSCREEN);
    expect(toHex(xchacha20poly1305(KEY_80_9F, nonce, aad).encrypt(SUNSCREEN))).toBe(ct + tag);
    aead.destroy();
  });
});

describe('AES-GCM (GCM specification test cases, NIST SP 800-38D)', () => {
  const P64 =
    'd9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255';
  const P60 = P64.slice(0, 120);
  const IV = 'cafebabefacedbaddecaf888';
  const A = 'feedfacedeadbeeffeedfacedeadbeefabaddad2';
  const K128 = 'feffe9928665731c6d6a8f9467308308';
  const K256 = K128 + K128;
  const C3 =
    '42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985';
  const C15 =
    '522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad';
  const cases: [string, AeadAlgorithm, string, string, string, string, string, string][] = [
    ['1', AeadAlgorithm.Aes128Gcm, '00'.repeat(16), '00'.repeat(12), '', '', '', '58e2fccefa7e3061367f1d57a4e7455a'],
    ['2', AeadAlgorithm.Aes128Gcm, '00'.repeat(16), '00'.repeat(12), '00'.repeat(16), '', '0388dace60b6a392f328c2b971b2fe78', 'ab6e47d42cec13bdf53a67b21257bddf'],
    ['3', AeadAlgorithm.Aes128Gcm, K128, IV, P64, '', C3, '4d5c2af327cd64a62cf35abd2ba6fab4'],
    ['4', AeadAlgorithm.Aes128Gcm, K128, IV, P60, A, C3.slice(0, 120), '5bc94fbc3221a5db94fae95ae7121a47'],
    ['13', AeadAlgorithm.Aes256Gcm, '00'.repeat(32), '00'.repeat(12), '', '', '', '530f8afbc74536b9a963b4f1c4cb738b'],
    ['14', AeadAlgorithm.Aes256Gcm, '00'.repeat(32), '00'.repeat(12), '00'.repeat(16), '', 'cea7403d4d606b6e074ec5d3baf39d18', 'd0d1c8a799996bf0265b98b5d48ab919'],
    ['15', AeadAlgorithm.Aes256Gcm, K256, IV, P64, '', C15, 'b094dac5d93471bdec1a502270e3cc6c'],
    ['16', AeadAlgorithm.Aes256Gcm, K256, IV, P60, A, C15.slice(0, 120), '76fc6ece0f4e1768cddf8853bb2d551b'],
  ];
  for (const [name, algorithm, key, iv, p, a, c, t] of cases) {
    it(`test case ${name}`, () => {
      const aead = new CoreAead(core, algorithm, hex(key));
      expect(toHex(aead.encrypt(hex(iv), hex(p), hex(a)))).toBe(c + t);
      expect(toHex(aead.decrypt(hex(iv), hex(c + t), hex(a))!)).toBe(p);
      const n = createCipheriv(algorithm === AeadAlgorithm.Aes128Gcm ? 'aes-128-gcm' : 'aes-256-gcm', hex(key), hex(iv));
      n.setAAD(hex(a));
      expect(Buffer.concat([n.update(hex(p)), n.final(), n.getAuthTag()]).toString('hex')).toBe(c + t);
      aead.destroy();
    });
  }
});

describe('SHA-256 and HKDF (key ratchet)', () => {
  it('SHA-256 of "abc" and of a two-block message', () => {
    for (const msg of [ascii('abc'), ascii('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'), new Uint8Array(1000).fill(0x61)]) {
      const [m, o] = place(core, msg, new Uint8Array(32));
      core.exports.sha256(m!, msg.length, o!);
      expect(toHex(core.bytes.slice(o!, o! + 32))).toBe(createHash('sha256').update(msg).digest('hex'));
    }
    const [m, o] = place(core, ascii('abc'), new Uint8Array(32));
    core.exports.sha256(m!, 3, o!);
    expect(toHex(core.bytes.slice(o!, o! + 32))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('RFC 5869 test case 1 (Expand step)', () => {
    const prk = hex('077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5');
    const info = hex('f0f1f2f3f4f5f6f7f8f9');
    const okm = '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865';
    expect(toHex(hkdfExpand(core, prk, info, 42))).toBe(okm);
    const full = hkdfSync('sha256', hex('0b'.repeat(22)), hex('000102030405060708090a0b0c'), info, 42);
    expect(toHex(new Uint8Array(full))).toBe(okm);
  });
});
