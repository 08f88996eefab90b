// A premium button in a message opens the store's checkout (issue 14), in headless Chromium: a
// game's bot posts a message with a premium button (component style 6 with `sku_id`) in a guild
// channel; a member opens the channel in the web app, sees the button with the SKU's name and
// price, presses it, buys in the checkout dialog (test mode), and the bot hears entitlementCreate
// on discord.js v14, unmodified. On a phone too. Screenshots: test-results/commerce-premium-*.png.
import { join } from 'node:path';
import { type Client, type Entitlement, Events } from 'discord.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { type CommerceBrowserEnv, startCommerceBrowserEnv } from './commerceBrowserHarness.ts';
import type { TestServer } from './harness.ts';
import { RESULTS, fillSignUp } from './webAppSignUp.ts';

let t: TestServer;
let browser: Browser;
let bot: Client;
let crown: string;
let cape: string;
const pageErrors: string[] = [];

let env: CommerceBrowserEnv | undefined;

beforeAll(async () => {
  env = await startCommerceBrowserEnv();
  ({ t, browser, bot } = env);
  crown = (await t.server.commerce.createSku(t.app.id, { name: 'Royal Crown', type: 'durable', price: 1299 })).id;
  cape = (await t.server.commerce.createSku(t.app.id, { name: 'Velvet Cape', type: 'durable', price: 350 })).id;
}, 180_000);

afterAll(() => env?.close());

/** Signs up from /app, creates a guild in the UI, adds the game's bot; the guild's text channel. */
async function memberWithBot(page: Page, login: string, name: string): Promise<{ guildId: string; channelId: string }> {
  page.on('pageerror', (e) => void pageErrors.push(e.message));
  await page.goto(`${t.server.url}/app`);
  await fillSignUp(page, login, name);
  await page.waitForSelector('#home');
  await page.fill('#guild-name', `${name}'s guild`);
  await page.click('#create-guild-submit');
  await page.waitForURL(/\/app\/guilds\/\d+$/);
  const guildId = /\/app\/guilds\/(\d+)$/.exec(page.url())![1]!;
  await guildServicesFor(t.server.store, undefined as never).installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages | Permission.ReadMessageHistory);
  const channelId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
  return { guildId, channelId };
}

/** The bot posts a message with premium buttons, through discord.js's REST. */
async function postPremium(channelId: string): Promise<void> {
  await bot.rest.post(`/channels/${channelId}/messages`, {
    body: { content: 'The royal wardrobe is open.', components: [{ type: 1, components: [{ type: 2, style: 6, sku_id: crown }, { type: 2, style: 6, sku_id: cape }] }] },
  });
}

function nextEntitlement(skuId: string): Promise<Entitlement> {
  return new Promise((resolve) => {
    const on = (e: Entitlement) => {
      if (e.skuId !== skuId) return;
      bot.off(Events.EntitlementCreate, on);
      resolve(e);
    };
    bot.on(Events.EntitlementCreate, on);
  });
}

describe('premium buttons in messages', () => {
  it('a member presses a premium button in a channel and buys through the checkout; the bot hears entitlementCreate', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const { guildId, channelId } = await memberWithBot(page, 'ada_premium', 'Ada');
    await postPremium(channelId);
    await page.goto(`${t.server.url}/app/guilds/${guildId}/channels/${channelId}`);
    const button = page.locator(`.premium-button[data-sku-id="${crown}"]`);
    await button.waitFor();
    await page.waitForSelector(`.premium-button[data-sku-id="${crown}"]:not([disabled])`);
    await expect(button.textContent()).resolves.toBe('Royal Crown · $12.99');
    await expect(page.locator(`.premium-button[data-sku-id="${cape}"]`).textContent()).resolves.toBe('Velvet Cape · $3.50');
    await page.screenshot({ path: join(RESULTS, 'commerce-premium-desktop-message.png') });

    const heard = nextEntitlement(crown);
    await button.click();
    await page.waitForSelector('#checkout[data-step="confirm"]');
    await expect(page.textContent('#checkout-title')).resolves.toBe('Buy Royal Crown');
    await page.screenshot({ path: join(RESULTS, 'commerce-premium-desktop-checkout.png') });
    await page.click('#checkout-buy');
    await page.waitForSelector('#checkout-done');
    const e = await heard;
    expect(e).toMatchObject({ skuId: crown, applicationId: t.app.id, type: 1, consumed: false });
    await page.click('#checkout-ok');
    // Pressing it again: the dialog knows it is owned and offers no second purchase.
    await button.click();
    await page.waitForSelector('#checkout[data-step="confirm"]');
    await expect(page.textContent('#checkout-buy')).resolves.toBe('You own this');
    expect(await page.isDisabled('#checkout-buy')).toBe(true);
    await page.keyboard.press('Escape');
    await context.close();
  });

  it('on a phone the button fits and opens the checkout as a bottom sheet', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    const page = await context.newPage();
    const { guildId, channelId } = await memberWithBot(page, 'bo_premium', 'Bo');
    await postPremium(channelId);
    await page.goto(`${t.server.url}/app/guilds/${guildId}/channels/${channelId}`);
    await page.waitForSelector(`.premium-button[data-sku-id="${cape}"]:not([disabled])`);
    const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect(scroll).toBeLessThanOrEqual(client);
    await page.screenshot({ path: join(RESULTS, 'commerce-premium-phone-message.png') });
    const heard = nextEntitlement(cape);
    await page.locator(`.premium-button[data-sku-id="${cape}"]`).tap();
    await page.waitForSelector('#checkout[data-step="confirm"]');
    await page.screenshot({ path: join(RESULTS, 'commerce-premium-phone-checkout.png') });
    await page.locator('#checkout-buy').tap();
    await page.waitForSelector('#checkout-done');
    expect((await heard).skuId).toBe(cape);
    await context.close();
    expect(pageErrors).toEqual([]);
  });
});
