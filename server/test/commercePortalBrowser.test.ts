// The portal's SKUs in headless Chromium (issue 14): a developer creates a subscription SKU with
// the section's form, opens the SKU list, turns test mode on, takes the SKU off sale; the bot
// then sees it in GET /applications/{id}/skus. Screenshots at desktop and phone widths go to
// test-results/ (commerce-*.png).
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const shot = (page: Page, name: string) => page.screenshot({ path: join(RESULTS, name), fullPage: true });

describe('portal SKUs in Chromium', () => {
  it('creates a SKU, lists it, turns test mode on and takes it off sale', async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${t.server.url}/developers`);
    await page.click('a[href^="/signup"]');
    await page.fill('#login', 'dev_shop');
    await page.fill('#display_name', 'Shopkeeper');
    await page.fill('#password', 'correct horse battery');
    await page.click('#sign-up');
    await page.waitForURL(`${t.server.url}/developers`);
    await page.fill('#new-name', 'Store Quest');
    await page.click('#create-app');
    await page.waitForSelector('#created-secrets');
    const appId = (await page.textContent('#application-id'))!.trim();
    const botToken = (await page.textContent('#bot-token'))!.trim();

    await page.goto(`${t.server.url}/developers/applications/${appId}#skus`);
    await page.fill('#sku-name', 'Gold Membership');
    await page.selectOption('#sku-type', 'subscription');
    await page.fill('#sku-price', '799');
    await page.fill('#sku-period', '30');
    await shot(page, 'commerce-portal-section.png');
    await page.click('#create-sku');
    await page.waitForURL(/saved=skus/);

    await page.click('#sku-list');
    await page.waitForSelector('#skus');
    await expect(page.locator('#skus .sku').count()).resolves.toBe(1);
    await expect(page.locator('#skus .price').textContent()).resolves.toBe('7.99');
    await page.check('#test-mode');
    await page.click('#save-test-mode');
    await page.waitForURL(/saved=skus/);
    await page.goto(`${t.server.url}/developers/applications/${appId}/skus`);
    expect(await page.isChecked('#test-mode')).toBe(true);
    await shot(page, 'commerce-portal-skus.png');
    // Off sale, from the row's own form.
    await page.uncheck('#skus input[name="available"]');
    await page.click('#skus button[type="submit"]');
    await page.waitForURL(/saved=skus/);

    const res = await fetch(`${t.server.url}/api/v10/applications/${appId}/skus`, { headers: { authorization: `Bot ${botToken}` } });
    const skus = (await res.json()) as { name: string; type: number; price: number; flags: number; billing_period_days: number }[];
    expect(skus).toEqual([expect.objectContaining({ name: 'Gold Membership', type: 5, price: 799, flags: 256, billing_period_days: 30 }), expect.objectContaining({ name: 'Gold Membership', type: 6, flags: 256 })]);

    // Phone width: the list still fits sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.server.url}/developers/applications/${appId}/skus`);
    await shot(page, 'commerce-portal-skus-phone.png');
    const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect(scroll).toBeLessThanOrEqual(client);
    await context.close();
  }, 60_000);
});
