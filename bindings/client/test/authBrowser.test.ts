// The browser path of account linking in headless Chromium: a page that bundles the client
// (test/fixtures/authPopupPage.ts, built with esbuild like the sample game) calls authorize()
// with the default opener, a popup on the platform's authorize page. The test signs up and
// consents in the popup like a player; the page gets the code back on its own URL, the client
// checks the state, exchanges the code and connects. Also: a tampered state is refused, closing
// the popup is Aborted, and openConnectedGamesSettingsInDiscord opens the account page in a popup.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchChromium } from '../../../tools/testing/chromium.ts';
import { startServer, type RunningServer } from '@social-layer/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorType } from '../src/index.ts';

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(resolve(here, '../../..'), 'test-results');
const PAGE_PATH = '/games/auth-popup/';

let server: RunningServer;
let dataDir: string;
let appId: string;
let browser: Browser;
const pageErrors: string[] = [];

interface LinkResult {
  ok: boolean;
  code?: string;
  redirectUri?: string;
  username?: string;
  type?: number;
  error?: string;
}

beforeAll(async () => {
  await mkdir(resultsDir, { recursive: true });
  dataDir = await mkdtemp(join(tmpdir(), 'sl-auth-browser-'));
  // The server hosts <samplesDir>/<name>/dist under /games/<name>/: the page shares the
  // platform's origin, as a game hosted next to it would, so the redirect is readable.
  const dist = join(dataDir, 'games', 'auth-popup', 'dist');
  await mkdir(dist, { recursive: true });
  await build({
    entryPoints: [join(here, 'fixtures/authPopupPage.ts')],
    outfile: join(dist, 'bundle.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    external: ['ws', 'opusscript'],
    logLevel: 'warning',
  });
  await writeFile(
    join(dist, 'index.html'),
    '<!doctype html><meta charset="utf-8"><title>Popup Game</title><button id="link">Link your account</button> <button id="settings">Connected games</button><p id="out">Not linked</p><script type="module" src="bundle.js"></script>',
  );
  server = await startServer({ port: 0, dataDir, serveSamples: true, samplesDir: join(dataDir, 'games'), logLevel: 'error', accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } } });
  const app = await server.createApplication({ name: 'Popup Game' });
  appId = app.id;
  // A loopback redirect matches with any port (RFC 8252), so the registration is port-free.
  await server.configureApplication(appId, { redirectUris: [`http://127.0.0.1${PAGE_PATH}`] });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function gamePage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${server.url}${PAGE_PATH}?app=${appId}`);
  return page;
}

async function result(page: Page, name: 'linkResult' | 'settingsResult'): Promise<LinkResult> {
  await page.waitForFunction((n) => (window as unknown as Record<string, unknown>)[n] !== undefined, name, { timeout: 15_000 });
  return page.evaluate((n) => (window as unknown as Record<string, LinkResult>)[n]!, name);
}

/** Clicks "Link your account" and returns the authorize popup. */
async function openAuthorizePopup(page: Page): Promise<Page> {
  const [popup] = await Promise.all([page.waitForEvent('popup'), page.click('#link')]);
  await popup.waitForLoadState();
  return popup;
}

describe('authorize in the browser (default popup opener)', () => {
  it('signs up and consents in the popup; the page gets the code with the state checked, and connects', async () => {
    const context = await browser.newContext();
    const page = await gamePage(context);
    const popup = await openAuthorizePopup(page);
    // Signed out, the popup went through /login?next=<the authorize request>.
    const first = new URL(popup.url());
    const authorizeUrl = first.pathname === '/login' ? new URL(first.searchParams.get('next')!, server.url) : first;
    expect(authorizeUrl.pathname).toBe('/oauth2/authorize');
    const state = authorizeUrl.searchParams.get('state')!;
    expect(state).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(authorizeUrl.searchParams.get('redirect_uri')).toBe(`${server.url}${PAGE_PATH}`);
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');

    // Every navigation of the popup; the last one is the redirect back to the game page.
    const visited: string[] = [];
    popup.on('framenavigated', (f) => f === popup.mainFrame() && visited.push(f.url()));
    await popup.click('text=Create an account');
    await popup.fill('#login', 'popup_player');
    await popup.fill('#password', 'a long password 123');
    await popup.click('#sign-up');
    await popup.waitForSelector('#authorize');
    await popup.screenshot({ path: join(resultsDir, 'auth-popup-consent.png') });
    const closed = popup.waitForEvent('close');
    await popup.click('#authorize');
    await closed;

    const linked = await result(page, 'linkResult');
    expect(linked).toMatchObject({ ok: true, username: 'popup_player', redirectUri: `${server.url}${PAGE_PATH}` });
    const back = new URL(visited.find((u) => u.startsWith(`${server.url}${PAGE_PATH}?`))!);
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('code')).toBe(linked.code);
    expect(await page.textContent('#out')).toBe('Linked as popup_player');
    await page.screenshot({ path: join(resultsDir, 'auth-popup-linked.png') });

    // The connected games page opens in a popup too, signed in by the same browser session.
    const [settings] = await Promise.all([page.waitForEvent('popup'), page.click('#settings')]);
    await settings.waitForLoadState();
    expect((await result(page, 'settingsResult')).ok).toBe(true);
    expect(new URL(settings.url()).pathname).toBe('/account');
    expect(await settings.textContent('body')).toContain('Popup Game');
    await settings.screenshot({ path: join(resultsDir, 'auth-popup-account.png') });

    // The verbose client log of the whole flow holds neither the code nor the state.
    const logs = await page.evaluate(() => (window as unknown as { clientLogs: string[] }).clientLogs);
    expect(logs.length).toBeGreaterThan(5);
    expect(logs.filter((l) => l.includes(linked.code!) || l.includes(state))).toEqual([]);
    await context.close();
  });

  it('refuses a redirect whose state was tampered with, and treats a closed popup as Aborted', async () => {
    const context = await browser.newContext();
    const page = await gamePage(context);
    const signup = await openAuthorizePopup(page);
    await signup.click('text=Create an account');
    await signup.fill('#login', 'popup_victim');
    await signup.fill('#password', 'a long password 123');
    await signup.click('#sign-up');
    await signup.waitForSelector('#authorize');
    // An attacker's response: the platform's own redirect, with another state.
    await context.route('**/oauth2/authorize', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      const res = await route.fetch({ maxRedirects: 0 });
      const location = new URL(res.headers().location!);
      location.searchParams.set('state', 'forged-state-value');
      await route.fulfill({ status: 200, contentType: 'text/html', body: `<meta http-equiv="refresh" content="0;url=${location.href.replace(/&/g, '&amp;')}">` });
    });
    await signup.click('#authorize');
    const forged = await result(page, 'linkResult');
    expect(forged).toMatchObject({ ok: false, type: ErrorType.AuthorizationFailed });
    expect(forged.error).toMatch(/state mismatch/);
    expect(await page.textContent('#out')).toMatch(/^Not linked: state mismatch/);
    await context.unroute('**/oauth2/authorize');

    const popup = await openAuthorizePopup(page);
    await popup.close();
    const cancelled = await result(page, 'linkResult');
    expect(cancelled).toMatchObject({ ok: false, type: ErrorType.Aborted });
    expect(cancelled.error).toMatch(/closed/);
    await context.close();
  });

  it('had no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
