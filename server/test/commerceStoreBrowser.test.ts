// The web app's store in headless Chromium (issue 14): a player opens a game's store, buys a
// durable SKU through the checkout dialog (test mode: no payment), sees it owned; subscribes to a
// subscription SKU, finds it on the subscriptions page and cancels it there. The game's bot, on
// discord.js v14 unmodified, hears entitlementCreate for the purchase made in the browser, and
// subscriptionCreate/Update for the subscription and its cancel. A second player on a phone buys a
// consumable from the bottom-sheet dialog. A refused checkout (test mode off, no provider) shows the
// server's message and writes nothing. The game's developer (its tester) buying in their own store
// gets a test purchase (TEST_MODE_PURCHASE). Screenshots (desktop 1280x800, phone 390x844) go to
// test-results/commerce-store-*.png.
import { join } from 'node:path';
import { type Client, type Entitlement, Events, type Subscription } from 'discord.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommerceBrowserEnv, startCommerceBrowserEnv } from './commerceBrowserHarness.ts';
import type { TestServer } from './harness.ts';
import { RESULTS, signUpFromLogin as signUp } from './webAppSignUp.ts';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let t: TestServer;
let browser: Browser;
let bot: Client;
let sword: string;
let pass: string;
let potion: string;
const pageErrors: string[] = [];
const failed: string[] = [];

/** Resolves with the next event of that name the bot's client emits that `pick` accepts. */
function next<T extends unknown[]>(event: string, pick: (...args: T) => boolean = () => true): Promise<T> {
  return new Promise((resolve) => {
    const on = (...args: unknown[]) => {
      if (!pick(...(args as T))) return;
      bot.off(event, on);
      resolve(args as T);
    };
    bot.on(event, on);
  });
}

let env: CommerceBrowserEnv | undefined;

beforeAll(async () => {
  env = await startCommerceBrowserEnv();
  ({ t, browser, bot } = env);
  sword = (await t.server.commerce.createSku(t.app.id, { name: 'Golden Sword', type: 'durable', price: 499 })).id;
  pass = (await t.server.commerce.createSku(t.app.id, { name: 'Season Pass', type: 'subscription', price: 999, billingPeriodDays: 30 })).id;
  potion = (await t.server.commerce.createSku(t.app.id, { name: 'Healing Potion', type: 'consumable', price: 99 })).id;
  // Off sale: not shown in the store.
  const old = await t.server.commerce.createSku(t.app.id, { name: 'Retired Shield', type: 'durable', price: 100 });
  await t.server.commerce.updateSku(t.app.id, old.id, { available: false });
}, 180_000);

afterAll(() => env?.close());

async function watchedPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (e) => void pageErrors.push(e.message));
  page.on('response', (r) => {
    // The refused checkout below is expected; nothing else may fail.
    if (r.status() >= 400 && !r.url().includes('/checkout')) failed.push(`${r.status()} ${r.url()}`);
  });
  return page;
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(RESULTS, `commerce-store-${name}.png`) });

async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(scroll).toBeLessThanOrEqual(client);
}

const card = (page: Page, skuId: string) => page.locator(`#store-skus .store-sku[data-sku-id="${skuId}"]`);

describe('the web app store in Chromium', () => {
  it('a player buys a durable SKU and subscribes through the checkout dialog; the bot hears it; the subscription is canceled on the subscriptions page', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await watchedPage(context);
    await page.goto(`${t.server.url}/app/store/${t.app.id}`);
    await signUp(page, 'ada_shop', 'Ada Shopper');
    await page.waitForURL(`${t.server.url}/app/store/${t.app.id}`);
    await page.waitForSelector('#store-skus');
    await expect(page.textContent('#store-name')).resolves.toBe('Test Game');
    await expect(page.locator('#store-test-mode').count()).resolves.toBe(1);
    expect(await page.locator('#store-skus .store-sku-name').allTextContents()).toEqual(['Golden Sword', 'Season Pass', 'Healing Potion']);
    expect(await page.locator('#store-skus .store-sku-price').allTextContents()).toEqual(['$4.99', '$9.99 / 30 days', '$0.99']);
    await shot(page, 'desktop-store');

    // Buy the sword: the dialog says what, for how much, and that test mode takes no payment.
    const created = next<[Entitlement]>(Events.EntitlementCreate, (e) => e.skuId === sword);
    await card(page, sword).locator('button').click();
    await page.waitForSelector('#checkout[data-step="confirm"]');
    await expect(page.textContent('#checkout-title')).resolves.toBe('Buy Golden Sword');
    await expect(page.textContent('#checkout-price')).resolves.toBe('$4.99');
    await expect(page.locator('#checkout-test-mode').textContent()).resolves.toContain('no payment is taken');
    await shot(page, 'desktop-checkout');
    await page.click('#checkout-buy');
    await page.waitForSelector('#checkout-done');
    await shot(page, 'desktop-checkout-done');
    const [entitlement] = await created;
    expect(entitlement).toMatchObject({ skuId: sword, applicationId: t.app.id, type: 1, consumed: false, deleted: false, endsTimestamp: null });
    const buyer = entitlement.userId!;
    expect((await t.server.store.users.get(buyer))?.global_name).toBe('Ada Shopper');
    await page.click('#checkout-ok');
    await expect(page.locator('#checkout').count()).resolves.toBe(0);
    // The store reloads: the sword is owned and listed under what the player owns.
    await page.waitForSelector(`#store-skus .store-sku[data-sku-id="${sword}"][data-owned="owned"]`);
    expect(await page.locator('#store-owned .store-entitlement-name').allTextContents()).toEqual(['Golden Sword']);
    // The bot sees the same entitlement over REST.
    const fetched = await bot.application!.entitlements.fetch({ user: buyer, cache: false });
    expect([...fetched.keys()]).toEqual([entitlement.id]);

    // Subscribe to the season pass.
    const subscribed = next<[Subscription]>(Events.SubscriptionCreate);
    const passEntitlement = next<[Entitlement]>(Events.EntitlementCreate, (e) => e.skuId === pass);
    await card(page, pass).locator('button').click();
    await page.waitForSelector('#checkout[data-step="confirm"]');
    await expect(page.textContent('#checkout-title')).resolves.toBe('Subscribe to Season Pass');
    await page.click('#checkout-buy');
    await page.waitForSelector('#checkout-done');
    const [subscription] = await subscribed;
    expect((await passEntitlement)[0]).toMatchObject({ userId: buyer, type: 8, endsTimestamp: null });
    expect(subscription).toMatchObject({ userId: buyer, skuIds: [pass], renewalSkuIds: [pass], status: 0 });
    await page.click('#checkout-subscriptions');
    await page.waitForURL(`${t.server.url}/app/subscriptions`);
    const row = page.locator(`#subscription-list .sub[data-subscription-id="${subscription.id}"]`);
    await row.waitFor();
    await expect(row.locator('.sub-name').textContent()).resolves.toBe('Season Pass');
    await expect(row.locator('.sub-status').textContent()).resolves.toBe('Active');
    await expect(row.locator('.sub-period').textContent()).resolves.toMatch(/^Renews on \d{1,2} \w{3} \d{4}$/);
    await shot(page, 'desktop-subscriptions');

    // Cancel: asks first, then ENDING (our 2) until the period ends; the bot hears the update.
    const canceled = next<[Subscription | null, Subscription]>(Events.SubscriptionUpdate, (_old, s) => s.id === subscription.id);
    await row.locator('.sub-cancel').click();
    await row.locator('.sub-cancel-confirm').click();
    await page.waitForSelector(`#subscription-list .sub[data-subscription-id="${subscription.id}"][data-status="2"]`);
    await expect(row.locator('.sub-status').textContent()).resolves.toBe('Canceled');
    await expect(row.locator('.sub-period').textContent()).resolves.toMatch(/^Active until /);
    expect((await canceled)[1]).toMatchObject({ status: 2, renewalSkuIds: [] });
    expect((await canceled)[1].canceledTimestamp).not.toBeNull();
    await shot(page, 'desktop-subscriptions-canceled');

    // Back in the store (link from the subscription): the pass reads Canceled, the sword Owned.
    await row.locator('a').click();
    await page.waitForURL(`${t.server.url}/app/store/${t.app.id}`);
    await page.waitForSelector(`#store-skus .store-sku[data-sku-id="${pass}"][data-owned="ending"]`);
    await context.close();
  });

  it('a second player buys a consumable on a phone; the page fits the screen', async () => {
    const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    const page = await watchedPage(context);
    await page.goto(`${t.server.url}/app/store/${t.app.id}`);
    await signUp(page, 'bo_shop', 'Bo Buyer');
    await page.waitForURL(`${t.server.url}/app/store/${t.app.id}`);
    await page.waitForSelector('#store-skus');
    await expectNoHorizontalOverflow(page);
    await shot(page, 'phone-store');

    const created = next<[Entitlement]>(Events.EntitlementCreate, (e) => e.skuId === potion);
    await card(page, potion).locator('button').tap();
    await page.waitForSelector('#checkout[data-step="confirm"]');
    await expectNoHorizontalOverflow(page);
    await shot(page, 'phone-checkout');
    await page.locator('#checkout-buy').tap();
    await page.waitForSelector('#checkout-done');
    const [e] = await created;
    expect(e).toMatchObject({ skuId: potion, type: 1, consumed: false });
    await page.locator('#checkout-ok').tap();
    await page.waitForSelector(`#store-skus .store-sku[data-sku-id="${potion}"][data-owned="owned"]`);
    // The game consumes it (its bot): the player may buy another.
    await bot.application!.entitlements.consume(e.id);
    await page.reload();
    await page.waitForSelector(`#store-skus .store-sku[data-sku-id="${potion}"][data-owned="no"]`);
    await expect(page.locator('#store-owned .store-entitlement').count()).resolves.toBe(0);

    await page.goto(`${t.server.url}/app/subscriptions`);
    await page.waitForSelector('#subscriptions .ui-empty');
    await expect(page.textContent('#subscriptions .ui-empty')).resolves.toBe('You have no subscriptions.');
    await expectNoHorizontalOverflow(page);
    await shot(page, 'phone-subscriptions');
    await context.close();
  });

  it('with test mode off and no payment provider the dialog shows the refusal and nothing is written', async () => {
    await t.server.commerce.checkout.setTestMode(t.app.id, false);
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await watchedPage(context);
    await page.goto(`${t.server.url}/app/store/${t.app.id}`);
    await signUp(page, 'cy_shop', 'Cy');
    await page.waitForURL(`${t.server.url}/app/store/${t.app.id}`);
    await page.waitForSelector('#store-skus');
    await expect(page.locator('#store-test-mode').count()).resolves.toBe(0);
    const before = await t.server.store.database.db.selectFrom('entitlements').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    await card(page, sword).locator('button').click();
    await page.waitForSelector('#checkout[data-step="confirm"]');
    await page.click('#checkout-buy');
    await page.waitForSelector('#checkout-error');
    await expect(page.textContent('#checkout-error')).resolves.toMatch(/no payment provider is configured and test mode is off/);
    await shot(page, 'desktop-checkout-refused');
    const after = await t.server.store.database.db.selectFrom('entitlements').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    await page.keyboard.press('Escape');
    await expect(page.locator('#checkout').count()).resolves.toBe(0);
    await context.close();
    await t.server.commerce.checkout.setTestMode(t.app.id, true);
  });

  it('the game\'s developer (its tester) buys in their own store in test mode: a test purchase, TEST_MODE_PURCHASE', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await watchedPage(context);
    await page.goto(`${t.server.url}/developers`);
    await signUp(page, 'dev_tester', 'Dee Veloper');
    await page.waitForURL(`${t.server.url}/developers`);
    await page.fill('#new-name', 'Tester Quest');
    await page.click('#create-app');
    await page.waitForSelector('#created-secrets');
    const appId = (await page.textContent('#application-id'))!.trim();
    const botToken = (await page.textContent('#bot-token'))!.trim();
    const gem = (await t.server.commerce.createSku(appId, { name: 'Gem Pack', type: 'consumable', price: 199 })).id;
    await t.server.commerce.checkout.setTestMode(appId, true);

    await page.goto(`${t.server.url}/app/store/${appId}`);
    await page.waitForSelector('#store-skus');
    await expect(page.textContent('#store-test-mode')).resolves.toContain('You are its tester');
    await card(page, gem).locator('button').click();
    await page.waitForSelector('#checkout[data-step="confirm"]');
    await expect(page.textContent('#checkout-test-mode')).resolves.toContain('recorded as a test purchase');
    await page.click('#checkout-buy');
    await page.waitForSelector('#checkout-done');
    await expect(page.textContent('#checkout-done')).resolves.toContain('Gem Pack is yours (test purchase).');
    await shot(page, 'desktop-tester-done');
    const listed = await fetch(`${t.server.url}/api/v10/applications/${appId}/entitlements?sku_ids=${gem}`, { headers: { authorization: `Bot ${botToken}` } });
    expect(((await listed.json()) as { type: number }[]).map((e) => e.type)).toEqual([4]);
    await page.click('#checkout-ok');
    await page.waitForSelector('#store-owned .store-entitlement');
    await expect(page.textContent('#store-owned .store-entitlement')).resolves.toContain('Test purchase');
    await context.close();
  });

  it('no page error and no failed request along the way', () => {
    expect(pageErrors).toEqual([]);
    expect(failed).toEqual([]);
  });
});
