// The package bundles for browsers (esbuild, platform browser: no `node:` imports, WebCrypto and
// @noble only) and the bundle works: two sessions from it form a group through its delivery
// service and derive the same media keys.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { CoreError } from '@social-layer/core-wasm';
import { describe, expect, it } from 'vitest';
import { OurClient, TestCall, type DaveLib } from './harness.ts';

const CALL = '1300000000000000123';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

describe('browser bundle', () => {
  it('bundles without node: imports and runs a two-member group', async () => {
    const result = await build({
      entryPoints: [new URL('../src/index.ts', import.meta.url).pathname],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]!.text;
    expect(code).not.toMatch(/from ["']node:|require\(["']node:|import\(["']node:/);
    const dir = mkdtempSync(join(tmpdir(), 'dave-bundle-'));
    try {
      const file = join(dir, 'dave.mjs');
      writeFileSync(file, code);
      const lib = (await import(pathToFileURL(file).href)) as DaveLib;
      const call = await TestCall.create(CALL, lib);
      const a = await OurClient.create('1100000000000000051', CALL, undefined, lib);
      const b = await OurClient.create('1100000000000000052', CALL, undefined, lib);
      await call.join(a);
      await call.join(b);
      expect(a.errors).toEqual([]);
      expect(b.errors).toEqual([]);
      expect(call.ds.epoch).toBe(1);
      const key = (c: OurClient) => Buffer.from(c.session.senderBaseSecret(a.userId)!).toString('hex');
      expect(key(b)).toBe(key(a));
      expect(b.privacyCode).toBe(a.privacyCode);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs in headless Chromium: a group forms, keys agree, a member who left cannot decrypt', async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium, or set CHROMIUM_PATH`);
    }
    const bundle = await build({
      entryPoints: [new URL('./browserEntry.ts', import.meta.url).pathname],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (e) => pageErrors.push(e.message));
      // WebCrypto (HPKE, hashing) needs a secure context, as the microphone does: serve the page
      // as http://localhost (routed here, no server or network involved).
      await page.route('http://localhost/**', (route) =>
        route.fulfill({
          contentType: route.request().url().endsWith('.js') ? 'text/javascript' : 'text/html',
          body: route.request().url().endsWith('.js')
            ? bundle.outputFiles[0]!.text
            : '<!doctype html><html><head><script type="module" src="/dave.js"></script></head><body></body></html>',
        }),
      );
      await page.goto('http://localhost/');
      await page.waitForFunction(() => 'daveResult' in globalThis);
      const result = await page.evaluate(() => (globalThis as unknown as { daveResult: Promise<unknown> }).daveResult);
      expect(pageErrors).toEqual([]);
      expect(result).toMatchObject({
        errors: [],
        epochAfterJoins: 2,
        epochAfterLeave: 3,
        decryptedBefore: ['hello from a browser', 'hello from a browser'],
        decryptedAfter: ['hello from a browser', CoreError.AuthFailed],
      });
      const { codes } = result as { codes: string[] };
      expect(codes[0]).toMatch(/^\d{30}$/);
      expect(codes[1]).toBe(codes[0]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
