/**
 * What the samples' browser tests share: build the samples into a temporary folder, serve them
 * from the real server in-process, open players (one browser context each: its own device ID)
 * that record every page error, and wait for a sample to be in its lobby.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RunningServer } from '@social-layer/server';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { ensureCoreWasmBuilt, launchChromium } from './chromium.ts';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
export const RESULTS_DIR = join(REPO_ROOT, 'test-results');

export interface SampleServer {
  server: RunningServer;
  applicationId: string;
  /** `<server>/games/<sample>/` */
  url(sample: string): string;
  close(): Promise<void>;
}

/**
 * Builds each named sample (`samples/<name>/build.mjs`) into a temporary samples folder and
 * starts the server on port 0 serving them, with one application (what `/games/config.json`
 * names). The repo's own `dist/` folders are left alone.
 */
export async function startSampleServer(samples: readonly string[], appName = 'Sample test'): Promise<SampleServer> {
  ensureCoreWasmBuilt();
  await mkdir(RESULTS_DIR, { recursive: true });
  const dataDir = await mkdtemp(join(tmpdir(), 'sl-samples-'));
  const samplesDir = join(dataDir, 'samples');
  for (const sample of samples) {
    const { build } = (await import(pathToFileURL(join(REPO_ROOT, 'samples', sample, 'build.mjs')).href)) as {
      build(options: { outdir: string }): Promise<string>;
    };
    await build({ outdir: join(samplesDir, sample, 'dist') });
  }
  const { startServer } = await import('@social-layer/server');
  const server = await startServer({ port: 0, host: '127.0.0.1', dataDir, serveSamples: true, samplesDir, logLevel: 'warn' });
  const applicationId = (await server.createApplication({ name: appName })).id;
  return {
    server,
    applicationId,
    url: (sample) => `${server.url}/games/${sample}/`,
    close: async () => {
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Player {
  context: BrowserContext;
  page: Page;
}

/** Opens `url` in a new context; page errors, console errors and HTTP errors go to `errors`. */
export async function openPlayer(
  browser: Browser,
  name: string,
  url: string,
  errors: string[],
  viewport = { width: 1280, height: 800 },
): Promise<Player> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  watchErrors(page, name, errors);
  await page.goto(url);
  return { context, page };
}

export function watchErrors(page: Page, name: string, errors: string[]): void {
  page.on('pageerror', (error) => errors.push(`${name}: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${name} console: ${message.text()} (${message.location().url})`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`${name} HTTP ${response.status()} ${response.url()}`);
  });
}

export interface ReadyInfo {
  userId: string;
  lobbyId: string;
  secret: string;
  displayName: string;
}

interface AnyHook {
  ready: Promise<void>;
  userId?: string;
  lobbyId?: string;
  secret?: string;
  client?: { getCurrentUserV2(): { displayName: string } | undefined };
}

/** Waits for `window.__socialLayerSample.ready` and says who the player is. */
export async function waitReady(page: Page, errors: readonly string[]): Promise<ReadyInfo> {
  try {
    await page.waitForFunction(() => (window as unknown as { __socialLayerSample?: unknown }).__socialLayerSample !== undefined, undefined, { timeout: 45_000 });
    await page.evaluate(() => (window as unknown as { __socialLayerSample: AnyHook }).__socialLayerSample.ready);
  } catch (error) {
    // What the page said is usually the real cause (a bundle that threw, a failed request).
    throw new Error(`the sample did not get ready: ${String(error)}\npage errors:\n${errors.join('\n')}`);
  }
  return page.evaluate(() => {
    const hook = (window as unknown as { __socialLayerSample: AnyHook }).__socialLayerSample;
    return { userId: hook.userId!, lobbyId: hook.lobbyId!, secret: hook.secret!, displayName: hook.client?.getCurrentUserV2()?.displayName ?? '' };
  });
}

/**
 * A sample suite's fixtures in one call at a test file's top level: builds and serves `samples`
 * before the tests (and launches Chromium with `chromiumArgs`), closes everything after. Players
 * opened through it share one error list, which a test expects empty at its end.
 */
export function sampleSuite(samples: readonly string[], appName: string, chromiumArgs: readonly string[] = []) {
  let running: SampleServer | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  const errors: string[] = [];
  beforeAll(async () => {
    running = await startSampleServer(samples, appName);
    browser = await launchChromium(chromiumArgs);
  }, 180_000);
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close();
    await running?.close();
  });
  return {
    errors,
    get server(): RunningServer {
      return running!.server;
    },
    get applicationId(): string {
      return running!.applicationId;
    },
    get browser(): Browser {
      return browser!;
    },
    url: (sample = samples[0]!) => running!.url(sample),
    async open(name: string, url: string, viewport?: { width: number; height: number }): Promise<Player> {
      const player = await openPlayer(browser!, name, url, errors, viewport);
      contexts.push(player.context);
      return player;
    },
    ready: (page: Page) => waitReady(page, errors),
  };
}

type Hook = { avatarPosition(id: string): unknown; worldToClient(x: number, y: number): { x: number; y: number } | undefined };

/** A member's row in the overlay's member list. */
export const memberRow = (page: Page, userId: string) => page.locator(`.sl-members .sl-member[data-user-id="${userId}"]`);

/** Where the sample draws a member's avatar, in world units (null: not drawn). */
export function avatarPosition(page: Page, userId: string): Promise<{ x: number; y: number } | null> {
  return page.evaluate(
    (id) => ((window as unknown as { __socialLayerSample: Hook }).__socialLayerSample.avatarPosition(id) ?? null) as { x: number; y: number } | null,
    userId,
  );
}

/** Clicks where a world position is drawn (the engine maps the click back to the world). */
export async function clickWorld(page: Page, x: number, y: number): Promise<void> {
  const point = await page.evaluate(([wx, wy]) => (window as unknown as { __socialLayerSample: Hook }).__socialLayerSample.worldToClient(wx, wy), [x, y] as const);
  if (!point) throw new Error('the sample has nothing to click');
  await page.mouse.click(point.x, point.y);
}
