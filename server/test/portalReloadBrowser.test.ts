// The developer portal's POST-redirect-GET in headless Chromium, at desktop and phone widths: a
// developer creates an application, sees its secrets once, and reloads the page (likely, on the
// page that says "keep these now"): no second application, the secrets not shown again. The same
// for a client secret reset. Screenshots go to test-results/.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretMatches } from '../src/auth/secrets.ts';
import { launchChromium } from '../../tools/testing/chromium.ts';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';

const RESULTS = join(resolve(fileURLToPath(new URL('../../', import.meta.url))), 'test-results');

let t: TestServer;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(RESULTS, { recursive: true });
  t = await startTestServer({ accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } } });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  cleanupTempDirs();
});

describe('developer portal reloads in Chromium', () => {
  for (const [label, viewport] of [['desktop', { width: 1100, height: 900 }], ['phone', { width: 390, height: 844 }]] as const) {
    it(`creates one application and shows its secrets once, however often the page is reloaded (${label})`, async () => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      const login = `reload_${label}`;
      await page.goto(`${t.server.url}/signup?next=%2Fdevelopers`);
      await page.fill('#login', login);
      await page.fill('#display_name', login);
      await page.fill('#password', 'correct horse battery');
      await page.click('#sign-up');
      await page.waitForURL(`${t.server.url}/developers`);

      await page.fill('#new-name', 'Reload Quest');
      await page.click('#create-app');
      await page.waitForSelector('#created-secrets');
      const appId = (await page.textContent('#application-id'))!.trim();
      // The page the secrets are on was reached by a GET, and its URL carries no secret.
      expect(page.url()).toBe(`${t.server.url}/developers/applications/${appId}`);
      const clientSecret = (await page.textContent('#client-secret'))!.trim();
      expect(secretMatches(clientSecret, (await t.server.store.applications.get(appId))!.client_secret_hash)).toBe(true);
      await page.screenshot({ path: join(RESULTS, `portal-reload-created-${label}.png`) });

      await page.reload();
      await page.waitForSelector('#application-id');
      expect(await page.locator('#created-secrets').count()).toBe(0);
      expect(await page.content()).not.toContain(clientSecret);
      await page.screenshot({ path: join(RESULTS, `portal-reload-after-${label}.png`) });
      await page.goto(`${t.server.url}/developers`);
      expect(await page.locator('li[data-application-id]').count()).toBe(1);
      const owner = (await t.server.store.applications.get(appId))!.owner_id!;
      expect((await t.server.applications.listOwned(owner)).map((a) => a.name)).toEqual(['Reload Quest']);

      // A reset secret: shown once after the redirect, gone on reload, and only the new one works.
      await page.goto(`${t.server.url}/developers/applications/${appId}#oauth2`);
      await page.click('#reset-secret');
      await page.waitForSelector('#new-secret');
      expect(new URL(page.url()).search).toBe('');
      const reset = (await page.textContent('#new-secret'))!.trim();
      expect(secretMatches(reset, (await t.server.store.applications.get(appId))!.client_secret_hash)).toBe(true);
      await page.reload();
      await page.waitForSelector('#application-id');
      expect(await page.locator('#new-secret').count()).toBe(0);
      expect(secretMatches(reset, (await t.server.store.applications.get(appId))!.client_secret_hash)).toBe(true);
      await context.close();
    }, 90_000);
  }
});
