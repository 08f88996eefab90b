// A game's quests in the web app, in headless Chromium (issue 15): a player opens
// /app/quests/APP, signs up, sees the open quests (a future one is not shown), enrolls in one, and
// the game's receiver gets QUEST_USER_ENROLLMENT for that player and quest, verified with
// discord-interactions. A reload shows the enrollment kept. Screenshots (desktop 1280x800, phone
// 390x844) go to test-results/web-quests-*.png.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../tools/testing/chromium.ts';
import { build } from '../web/build.mjs';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { RESULTS, signUpFromLogin as signUp } from './webAppSignUp.ts';
import { WebhookReceiver } from './webhookReceiver.ts';


let t: TestServer;
let browser: Browser;
let receiver: WebhookReceiver;
const pageErrors: string[] = [];
const failed: string[] = [];

beforeAll(async () => {
  mkdirSync(RESULTS, { recursive: true });
  await build();
  t = await startTestServer({ accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } }, webhooks: { allowLoopback: true, pollIntervalMs: 50 } });
  receiver = await WebhookReceiver.start();
  receiver.publicKey = (await t.server.webhooks.wire(t.app.id)).verify_key;
  await t.server.webhooks.update(t.app.id, { event_webhooks_url: receiver.url, event_webhooks_types: ['QUEST_USER_ENROLLMENT'] });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await receiver?.close();
  cleanupTempDirs();
});

describe('quests in the web app', () => {
  it('a player enrolls in a quest; the game hears QUEST_USER_ENROLLMENT', async () => {
    const bot = { token: t.app.botToken, bot: true };
    const hunt = (await t.req('POST', `/applications/${t.app.id}/quests`, { ...bot, body: { name: 'Treasure Hunt', description: 'Find three chests in the valley', ends_at: new Date(Date.now() + 7 * 86_400_000).toISOString() } })).body;
    const daily = (await t.req('POST', `/applications/${t.app.id}/quests`, { ...bot, body: { name: 'Daily Login' } })).body;
    const later = (await t.req('POST', `/applications/${t.app.id}/quests`, { ...bot, body: { name: 'Winter Event', starts_at: new Date(Date.now() + 30 * 86_400_000).toISOString() } })).body;

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => void pageErrors.push(e.message));
    page.on('response', (r) => void (r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`)));
    await page.goto(`${t.server.url}/app/quests/${t.app.id}`);
    await signUp(page, 'quinn_q', 'Quinn Quester');
    await page.waitForURL(`${t.server.url}/app/quests/${t.app.id}`);
    await page.waitForSelector('#quest-list');
    await expect(page.textContent('#quests-game')).resolves.toBe('Test Game: quests');
    const shown = await page.locator('#quest-list .quest').evaluateAll((els) => els.map((e) => e.getAttribute('data-quest-id')));
    expect(new Set(shown)).toEqual(new Set([hunt.id, daily.id]));
    expect(shown).not.toContain(later.id);
    await page.screenshot({ path: join(RESULTS, 'web-quests-desktop.png') });

    await page.locator(`.quest[data-quest-id="${hunt.id}"] button.quest-enroll`).click();
    await page.waitForSelector(`.quest[data-quest-id="${hunt.id}"][data-enrolled="yes"] .quest-enrolled`);
    await receiver.waitFor(() => receiver.events().some((e) => e.body.event.type === 'QUEST_USER_ENROLLMENT'));
    const got = receiver.events().find((e) => e.body.event.type === 'QUEST_USER_ENROLLMENT')!;
    expect(got.verified).toBe(true);
    expect(got.body.event.data).toMatchObject({ quest_id: hunt.id, user: { global_name: 'Quinn Quester' }, quest: { id: hunt.id, name: 'Treasure Hunt' } });
    await page.screenshot({ path: join(RESULTS, 'web-quests-enrolled.png') });

    // A reload keeps it; the other quest still offers Enroll.
    await page.reload();
    await page.waitForSelector(`.quest[data-quest-id="${hunt.id}"][data-enrolled="yes"]`);
    await expect(page.locator(`.quest[data-quest-id="${daily.id}"] button.quest-enroll`).count()).resolves.toBe(1);

    // On a phone the list fits the width.
    await page.setViewportSize({ width: 390, height: 844 });
    const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect(scroll).toBeLessThanOrEqual(client);
    await page.screenshot({ path: join(RESULTS, 'web-quests-phone.png') });
    await context.close();
    expect(pageErrors).toEqual([]);
    expect(failed).toEqual([]);
  }, 120_000);
});
