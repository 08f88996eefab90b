import { instantiateCore } from '/work/main/core-wasm/src/loader.ts';
const c = await instantiateCore();
c.reservePool(1 << 20);
const key = c.bufferAlloc(32), nonce = c.bufferAlloc(24), ad = c.bufferAlloc(16), buf = c.bufferAlloc(65536 + 16);
function bench(name: string, fn: () => void, bytes: number) { let t = performance.now(), n = 0; while (performance.now() - t < 1000) { for (let i = 0; i < 10; i++) fn(); n += 10; } const dt = (performance.now() - t) / 1000; console.log(name, Math.round(n / dt), 'ops/s', (n * bytes / dt / 1e6).toFixed(1), 'MB/s'); }
const ctx = c.aeadCreate(1, key);
for (let r = 0; r < 2; r++) {
bench(`gcm seal 64k`, () => c.aeadSeal(ctx, nonce, ad, 12, buf, 65536, buf, buf + 65536), 65536);
bench(`gcm open-fail (ghash only) 64k`, () => c.aeadOpen(ctx, nonce, ad, 12, buf, 65536, buf, buf + 65536 - 3), 65536);
bench(`gcm seal 160`, () => c.aeadSeal(ctx, nonce, ad, 12, buf, 160, buf, buf + 160), 160);
}
