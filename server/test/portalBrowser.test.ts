// The developer portal in headless Chromium, end to end as a developer uses it: sign up, create
// an application in the portal, register a loopback redirect URI on a random port, then run the
// OAuth2 authorization code flow (PKCE, the application being a public client) to a real HTTP
// listener on that port, as a native game or CLI tool would, and exchange the code at the token
// endpoint. Screenshots of the portal at desktop and phone widths go to test-results/.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../tools/testing/chromium.ts';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';

const RESULTS = join(resolve(fileURLToPath(new URL('../../', import.meta.url))), 'test-results');

let t: TestServer;
let browser: Browser;
let listener: Server;
let callbacks: URL[] = [];

beforeAll(async () => {
  mkdirSync(RESULTS, { recursive: true });
  t = await startTestServer({ accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } } });
  browser = await launchChromium();
  // The game's loopback listener (RFC 8252): a random free port, chosen by the OS.
  listener = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback') callbacks.push(url);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Signed in</title><h1 id="done">You can close this window.</h1>');
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => listener?.close(r));
  await t?.close();
  cleanupTempDirs();
});

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(RESULTS, name), fullPage: true });
}

/** Nothing may stick out sideways: the page's content fits the viewport's width. */
async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(scroll).toBeLessThanOrEqual(client);
}

describe('developer portal in Chromium', () => {
  it('signs in, creates an application, adds a loopback redirect URI, and completes an OAuth2 code flow with PKCE to a listener on a random port', async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    const port = (listener.address() as AddressInfo).port;
    const redirectUri = `http://127.0.0.1:${port}/callback`;

    // Not signed in: the portal sends the developer to sign in and back.
    await page.goto(`${t.server.url}/developers`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.click('a[href^="/signup"]');
    await page.fill('#login', 'dev_ada');
    await page.fill('#display_name', 'Ada');
    await page.fill('#password', 'correct horse battery');
    await page.click('#sign-up');
    await page.waitForURL(`${t.server.url}/developers`);
    await expect(page.locator('#no-apps').textContent()).resolves.toContain('No applications');

    await page.fill('#new-name', 'Loopback Quest');
    await page.click('#create-app');
    await page.waitForSelector('#created-secrets');
    const appId = (await page.textContent('#application-id'))!.trim();
    expect(appId).toMatch(/^\d{17,20}$/);
    expect((await page.textContent('#client-secret'))!.trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await page.textContent('#bot-token'))!.trim()).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    await shot(page, 'portal-created.png');

    await page.fill('#redirect-uri', redirectUri);
    await page.click('#add-redirect');
    await page.waitForURL(/saved=oauth2/);
    await expect(page.locator('#redirect-uris').textContent()).resolves.toContain(redirectUri);
    // An icon, uploaded as a file. A 1x1 PNG is all a test needs; the page draws it at 52 px.
    await page.setInputFiles('#app-icon', { name: 'icon.png', mimeType: 'image/png', buffer: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64') });
    await page.click('#upload-icon');
    await page.waitForURL(/saved=general/);
    expect(await page.locator('.app img.app-icon').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 1)).toBe(true);

    // A public client (the default): PKCE without a secret, as a game on a player's machine.
    expect(await page.isChecked('#public-client')).toBe(true);
    await shot(page, 'portal-application.png');

    // The game opens the authorize URL in the player's browser (here: the same signed-in one).
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const state = randomBytes(16).toString('hex');
    const authorize = new URL('/oauth2/authorize', t.server.url);
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: appId, redirect_uri: redirectUri, scope: 'identify sdk.social_layer', state, code_challenge: challenge, code_challenge_method: 'S256' })) {
      authorize.searchParams.set(k, v);
    }
    await page.goto(authorize.toString());
    await expect(page.textContent('body')).resolves.toContain('Loopback Quest');
    await page.click('#authorize');
    await page.waitForSelector('#done');
    expect(page.url().startsWith(redirectUri)).toBe(true);
    await shot(page, 'portal-oauth-callback.png');

    expect(callbacks).toHaveLength(1);
    const cb = callbacks[0]!;
    expect(cb.searchParams.get('state')).toBe(state);
    const code = cb.searchParams.get('code')!;
    const token = await fetch(`${t.api}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: appId, code, code_verifier: verifier, redirect_uri: redirectUri }).toString(),
    });
    const body = await token.json();
    expect(token.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer' });
    expect(body.scope.split(' ').sort()).toEqual(['identify', 'sdk.social_layer']);
    const me = await t.req('GET', '/users/@me', { token: body.access_token });
    expect(me.body.username).toBe('dev_ada');
    // The same code again is refused (single use).
    const replay = await fetch(`${t.api}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: appId, code, code_verifier: verifier, redirect_uri: redirectUri }).toString(),
    });
    expect(replay.status).toBe(400);

    // The social SDK: enabling it shows how to install the packages; then ask for production access.
    await page.goto(`${t.server.url}/developers/applications/${appId}#social-sdk`);
    await page.click('#enable-sdk');
    await page.waitForSelector('#install-snippet');
    await expect(page.textContent('#install-snippet')).resolves.toContain('npm install @social-layer/client');
    await page.click('#request-approval');
    await page.waitForURL(/saved=social-sdk/);
    await expect(page.textContent('#approval-state')).resolves.toContain('Production access requested');
    await page.locator('#social-sdk').screenshot({ path: join(RESULTS, 'portal-social-sdk.png') });

    // The portal at phone width: everything reachable, nothing cut off sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.server.url}/developers/applications/${appId}`);
    await expectNoHorizontalOverflow(page);
    await shot(page, 'portal-application-phone.png');
    await page.goto(`${t.server.url}/developers`);
    await expectNoHorizontalOverflow(page);
    await shot(page, 'portal-list-phone.png');
    await context.close();
  }, 120_000);
});
