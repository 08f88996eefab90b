/**
 * Voice crypto throughput: core-wasm against @noble/ciphers, libsodium-wrappers and node:crypto,
 * all measured in this process and run. Packets: 160-byte payloads with a 12-byte RTP header as
 * additional data (packets per second); bulk: 64 KiB buffers (MB/s); encrypt and decrypt;
 * XChaCha20-Poly1305 and AES-256-GCM. Each library is used the way its API is meant for a
 * voice session: core-wasm with the key expanded once and caller-owned buffers in its memory
 * (no copy, no allocation); the others with their one-call APIs. `core-wasm-copy` is core-wasm
 * through CryptoBackend.createAead (copies in and allocates out), and `transport` is the full
 * rtpsize packet seal/open in place over both CryptoBackends.
 * Every case runs ROUNDS times for BENCH_CRYPTO_MS each, interleaved; the best round counts.
 * Ratios are core-wasm / peer (above 1: core-wasm is faster).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { gcm } from '@noble/ciphers/aes.js';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import sodium from 'libsodium-wrappers';
import {
  AeadAlgorithm,
  CoreAead,
  CoreCryptoBackend,
  NodeCryptoBackend,
  TransportMode,
  VoiceCore,
  hchacha20,
  type CryptoBackend,
} from '@social-layer/core-wasm';
import type { BenchResult } from './types.ts';

const ROUND_MS = Number(process.env.BENCH_CRYPTO_MS ?? 400);
const ROUNDS = Number(process.env.BENCH_CRYPTO_ROUNDS ?? 3);
const PACKET = 160;
const BULK = 64 * 1024;
const AD = 12;

type Alg = 'xchacha20poly1305' | 'aes256gcm';
interface Case {
  alg: Alg;
  size: number;
  op: 'encrypt' | 'decrypt';
  lib: string;
  fn: () => void;
  best: number;
}

function measure(fn: () => void, ms: number): number {
  // Calibrate a batch that takes about 5 ms so timer reads do not dominate.
  let batch = 1;
  for (;;) {
    const t = performance.now();
    for (let i = 0; i < batch; i++) fn();
    const dt = performance.now() - t;
    if (dt > 5 || batch > 1 << 20) break;
    batch *= 2;
  }
  let ops = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < batch; i++) fn();
    ops += batch;
    now = performance.now();
  }
  return (ops * 1000) / (now - start);
}

export default async function run(): Promise<BenchResult> {
  await sodium.ready;
  const core = await VoiceCore.create({ poolBytes: 4 << 20 });
  const coreBackend = CoreCryptoBackend.over(core);
  const nodeBackend = await NodeCryptoBackend.create();
  const key = new Uint8Array(randomBytes(32));
  const cases: Case[] = [];

  for (const size of [PACKET, BULK]) {
    const msg = new Uint8Array(randomBytes(size));
    const ad = new Uint8Array(randomBytes(AD));
    for (const alg of ['xchacha20poly1305', 'aes256gcm'] as const) {
      const nonceLength = alg === 'xchacha20poly1305' ? 24 : 12;
      const nonce = new Uint8Array(randomBytes(nonceLength));
      const add = (op: Case['op'], lib: string, fn: () => void) => cases.push({ alg, size, op, lib, fn, best: 0 });

      // core-wasm, zero-copy: nonce, AD, message, tag and a decrypt target in one core buffer.
      const algorithm = alg === 'xchacha20poly1305' ? AeadAlgorithm.XChaCha20Poly1305 : AeadAlgorithm.Aes256Gcm;
      const aead = new CoreAead(core, algorithm, key);
      const buf = core.alloc(nonceLength + AD + 2 * (size + 16));
      const n = buf.address, a = n + nonceLength, data = a + AD, tag = data + size, out = tag + 16;
      buf.bytes.set(nonce, 0);
      buf.bytes.set(ad, nonceLength);
      buf.bytes.set(msg, nonceLength + AD);
      const sealedBuf = core.alloc(size + 16);
      aead.sealAt(n, a, AD, data, size, sealedBuf.address, sealedBuf.address + size);
      add('encrypt', 'core-wasm', () => aead.sealAt(n, a, AD, data, size, out, out + size));
      add('decrypt', 'core-wasm', () => {
        if (!aead.openAt(n, a, AD, sealedBuf.address, size, out, sealedBuf.address + size)) throw new Error('core-wasm open failed');
      });

      // core-wasm through the CryptoBackend interface (copies in, allocates the result).
      const viaBackend = coreBackend.createAead(algorithm, key);
      const sealed = viaBackend.encrypt(nonce, msg, ad);
      add('encrypt', 'core-wasm-copy', () => viaBackend.encrypt(nonce, msg, ad));
      add('decrypt', 'core-wasm-copy', () => {
        if (!viaBackend.decrypt(nonce, sealed, ad)) throw new Error('core-wasm-copy open failed');
      });

      // @noble/ciphers (pure JS).
      const noble = alg === 'xchacha20poly1305' ? xchacha20poly1305 : gcm;
      add('encrypt', 'noble', () => noble(key, nonce, ad).encrypt(msg));
      add('decrypt', 'noble', () => noble(key, nonce, ad).decrypt(sealed));

      // libsodium-wrappers (WASM). Its AES-GCM needs AES-NI, which its WASM build lacks.
      if (alg === 'xchacha20poly1305') {
        add('encrypt', 'libsodium', () => sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(msg, ad, null, nonce, key));
        add('decrypt', 'libsodium', () => sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(null, sealed, ad, nonce, key));
      }

      // node:crypto (OpenSSL). XChaCha: HChaCha20 (from the core) + IETF ChaCha20-Poly1305.
      if (alg === 'aes256gcm') {
        add('encrypt', 'node', () => {
          const c = createCipheriv('aes-256-gcm', key, nonce);
          c.setAAD(ad);
          c.update(msg);
          c.final();
          c.getAuthTag();
        });
        const ct = sealed.subarray(0, size), t = sealed.subarray(size);
        add('decrypt', 'node', () => {
          const d = createDecipheriv('aes-256-gcm', key, nonce);
          d.setAAD(ad);
          d.setAuthTag(t);
          d.update(ct);
          d.final();
        });
      } else {
        const iv = new Uint8Array(12);
        iv.set(nonce.subarray(16), 4);
        const ct = sealed.subarray(0, size), t = sealed.subarray(size);
        const subkey = new Uint8Array(32);
        add('encrypt', 'node', () => {
          hchacha20(core, key, nonce, subkey);
          const c = createCipheriv('chacha20-poly1305', subkey, iv, { authTagLength: 16 });
          c.setAAD(ad, { plaintextLength: size });
          c.update(msg);
          c.final();
          c.getAuthTag();
        });
        add('decrypt', 'node', () => {
          hchacha20(core, key, nonce, subkey);
          const d = createDecipheriv('chacha20-poly1305', subkey, iv, { authTagLength: 16 });
          d.setAAD(ad, { plaintextLength: size });
          d.setAuthTag(t);
          d.update(ct);
          d.final();
        });
      }
    }
  }

  // Full transport packets (12-byte header + 160-byte frame), sealed and opened in place.
  const transport: { name: string; fn: () => void; best: number }[] = [];
  const backends: CryptoBackend[] = [coreBackend, nodeBackend];
  for (const backend of backends) {
    for (const mode of [TransportMode.XChaCha20Poly1305Rtpsize, TransportMode.Aes256GcmRtpsize]) {
      const tx = backend.createTransportCipher(mode, key);
      const rx = backend.createTransportCipher(mode, key);
      const plain = backend.allocate(12 + PACKET + 20);
      plain.set([0x80, 0x78, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3]);
      plain.set(randomBytes(PACKET), 12);
      const original = plain.slice();
      const work = backend.allocate(12 + PACKET + 20);
      const short = mode === TransportMode.XChaCha20Poly1305Rtpsize ? 'xchacha' : 'aes256gcm';
      transport.push({
        name: `transport.${short}.seal+open.${backend.name === 'core-wasm' ? 'core-wasm' : 'node'}.pps`,
        fn: () => {
          work.set(original);
          const n = tx.seal(work, 12 + PACKET);
          if (rx.open(work, n) !== PACKET) throw new Error('transport round trip failed');
        },
        best: 0,
      });
    }
  }

  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cases) c.best = Math.max(c.best, measure(c.fn, ROUND_MS));
    for (const t of transport) t.best = Math.max(t.best, measure(t.fn, ROUND_MS));
  }

  const figures: Record<string, number | string> = {};
  const notes: string[] = [];
  const label = (size: number) => (size === PACKET ? '160B' : '64KiB');
  const value = (c: Case) => (c.size === PACKET ? Math.round(c.best) : Math.round(((c.best * c.size) / 1e6) * 10) / 10);
  const unit = (size: number) => (size === PACKET ? 'pps' : 'MBps');
  for (const c of cases) figures[`${c.alg}.${label(c.size)}.${c.op}.${c.lib}.${unit(c.size)}`] = value(c);
  for (const c of cases) {
    if (c.lib === 'core-wasm') continue;
    const ours = cases.find((o) => o.lib === 'core-wasm' && o.alg === c.alg && o.size === c.size && o.op === c.op)!;
    figures[`${c.alg}.${label(c.size)}.${c.op}.core-wasm/${c.lib}`] = Math.round((ours.best / c.best) * 100) / 100;
  }
  for (const t of transport) figures[t.name] = Math.round(t.best);
  for (const mode of ['xchacha', 'aes256gcm']) {
    const c = transport.find((t) => t.name === `transport.${mode}.seal+open.core-wasm.pps`)!;
    const n = transport.find((t) => t.name === `transport.${mode}.seal+open.node.pps`)!;
    figures[`transport.${mode}.seal+open.core-wasm/node`] = Math.round((c.best / n.best) * 100) / 100;
  }

  // The targets, checked against this run.
  const ratio = (alg: Alg, size: number, op: string, lib: string) => figures[`${alg}.${label(size)}.${op}.core-wasm/${lib}`] as number;
  const check = (what: string, got: number, want: number) => {
    const ok = got >= want;
    figures[`target.${what}`] = `${ok ? 'met' : 'MISSED'} (${got}x, want >= ${want}x)`;
    if (!ok) notes.push(`target missed: ${what}: ${got}x < ${want}x`);
  };
  for (const op of ['encrypt', 'decrypt']) {
    check(`xchacha20poly1305.160B.${op}.vs-noble`, ratio('xchacha20poly1305', PACKET, op, 'noble'), 3);
    check(`xchacha20poly1305.160B.${op}.vs-libsodium`, ratio('xchacha20poly1305', PACKET, op, 'libsodium'), 1);
    check(`aes256gcm.160B.${op}.vs-noble`, ratio('aes256gcm', PACKET, op, 'noble'), 3);
    check(`aes256gcm.64KiB.${op}.vs-noble`, ratio('aes256gcm', BULK, op, 'noble'), 3);
  }
  notes.push(`best of ${ROUNDS} rounds x ${ROUND_MS} ms per case; ${process.version}; core-wasm built with WASM SIMD`);
  return {
    description:
      'AEAD throughput: 160-byte voice packets (12-byte AD) in packets/s and 64 KiB buffers in MB/s, encrypt and decrypt; ratios are core-wasm / peer.',
    figures,
    notes,
  };
}
