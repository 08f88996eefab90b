/**
 * The Opus fallback chunk, in headless Chromium against the real server. Two pages have
 * `AudioEncoder` and `AudioDecoder` removed before any script runs (a browser without WebCodecs):
 * they still join the lobby's call, download the opusscript chunk and its WASM file (never the
 * asm.js build), and the fake microphone's beeps from one reach the other's speakers. A third,
 * ordinary page hears them through WebCodecs and never downloads the fallback.
 *
 * Needs Debian's chromium at /usr/bin/chromium (or CHROMIUM_PATH); never downloads a browser.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { FAKE_MEDIA_ARGS } from '../../../tools/testing/chromium.ts';
import { sampleSuite, watchErrors } from '../../../tools/testing/sampleServer.ts';

const t = sampleSuite(['phaser-lobby'], 'Opus fallback test', FAKE_MEDIA_ARGS);
const errors = t.errors;

interface Opened {
  page: Page;
  /** Paths of every JavaScript and WASM file the page fetched. */
  fetched: string[];
}

async function open(name: string, url: string, webCodecs: boolean): Promise<Opened> {
  const context = await t.browser.newContext({ viewport: { width: 1024, height: 640 } });
  if (!webCodecs) {
    await context.addInitScript(() => {
      const w = window as unknown as Record<string, unknown>;
      delete w.AudioEncoder;
      delete w.AudioDecoder;
    });
  }
  const page = await context.newPage();
  watchErrors(page, name, errors);
  const fetched: string[] = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (/\.(js|wasm)$/.test(path)) fetched.push(path);
  });
  await page.goto(url);
  await t.ready(page);
  return { page, fetched };
}

const level = (page: Page) => page.evaluate(() => window.__socialLayerSample.voice?.call?.getPlaybackLevel() ?? 0);
const status = (page: Page) => page.evaluate(() => window.__socialLayerSample.voice?.call?.getStatus() ?? null);

describe('Opus fallback chunk', () => {
  it('a browser without WebCodecs still joins voice through the on-demand chunk, and the tone arrives', async () => {
    const a = await open('A (no WebCodecs)', t.url(), false);
    const b = await open('B (no WebCodecs)', a.page.url(), false);
    const c = await open('C (WebCodecs)', a.page.url(), true);
    expect(await a.page.evaluate(() => 'AudioEncoder' in window || 'AudioDecoder' in window)).toBe(false);
    expect(await c.page.evaluate(() => typeof AudioEncoder === 'function')).toBe(true);
    // Nothing of the fallback before voice: it is a chunk, not part of the bundle.
    for (const { fetched } of [a, b, c]) expect(fetched.filter((p) => /opusscript/.test(p))).toEqual([]);

    for (const { page } of [a, b, c]) await page.locator('.sl-bar-voice').click();
    for (const { page } of [a, b, c]) await expect.poll(() => status(page), { timeout: 30_000 }).toBe(4); // Connected

    // A and B loaded the chunk and its WASM; C, with WebCodecs, neither.
    for (const { fetched } of [a, b]) {
      expect(fetched.some((p) => /\/opusscript-[A-Z0-9]+\.js$/.test(p)), fetched.join(' ')).toBe(true);
      expect(fetched.some((p) => /\/opusscript_native_wasm-[A-Z0-9]+\.wasm$/.test(p)), fetched.join(' ')).toBe(true);
    }
    expect(c.fetched.filter((p) => /opusscript/.test(p))).toEqual([]);
    const chunk = a.fetched.find((p) => /\/opusscript-[A-Z0-9]+\.js$/.test(p))!;
    const source = await (await fetch(new URL(chunk, t.server.url))).text();
    expect(source.length).toBeLessThan(60_000); // the WASM glue only: no asm.js build (about 580 KB)

    // A (encoding with the fallback) holds V: B (decoding with it) and C (WebCodecs) hear it.
    await a.page.locator('canvas').click();
    await a.page.keyboard.down('v');
    for (const listener of [b, c]) {
      let loudest = 0;
      await expect
        .poll(async () => (loudest = Math.max(loudest, await level(listener.page))), { timeout: 30_000, interval: 50 })
        .toBeGreaterThan(0.01);
    }
    await a.page.keyboard.up('v');
    expect(errors).toEqual([]);
  }, 180_000);
});
