import { instantiateCore } from '/work/main/core-wasm/src/loader.ts';
import { gcm } from '@noble/ciphers/aes.js';
const c = await instantiateCore();
c.reservePool(1 << 20);
const key = c.bufferAlloc(32), nonce = c.bufferAlloc(24), ad = c.bufferAlloc(16), buf = c.bufferAlloc(65536 + 16);
const k = new Uint8Array(32), n = new Uint8Array(12), a = new Uint8Array(12), m = new Uint8Array(65536);
function once(fn: () => void, ms: number) { let t = performance.now(), i = 0; while (performance.now() - t < ms) { fn(); fn(); i += 2; } return i / ((performance.now() - t) / 1000) * 65536 / 1e6; }
const ctx = c.aeadCreate(1, key);
const f = { seal: 0, ghash: 0, noble: 0 };
for (let r = 0; r < 6; r++) {
  f.seal = Math.max(f.seal, once(() => c.aeadSeal(ctx, nonce, ad, 12, buf, 65536, buf, buf + 65536), 250));
  f.ghash = Math.max(f.ghash, once(() => c.aeadOpen(ctx, nonce, ad, 12, buf, 65536, buf, buf + 65536 - 3), 250));
  f.noble = Math.max(f.noble, once(() => gcm(k, n, a).encrypt(m), 250));
}
console.log(`gcm seal ${f.seal.toFixed(0)} MB/s; ghash-only ${f.ghash.toFixed(0)}; ctr-only est ${(1 / (1 / f.seal - 1 / f.ghash)).toFixed(0)}; noble ${f.noble.toFixed(0)}; ratio ${(f.seal / f.noble).toFixed(2)}`);
