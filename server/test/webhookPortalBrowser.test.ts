// The portal's webhook section in headless Chromium, as a developer uses it: set the URL of a
// local receiver (development mode), pick an event type, save (the PING is answered), see an
// event delivered on the deliveries page, and send it again. Screenshots go to test-results/.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../tools/testing/chromium.ts';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { WebhookReceiver } from './webhookReceiver.ts';

const RESULTS = join(resolve(fileURLToPath(new URL('../../', import.meta.url))), 'test-results');
let t: TestServer;
let browser: Browser;
let receiver: WebhookReceiver;

beforeAll(async () => {
  mkdirSync(RESULTS, { recursive: true });
  t = await startTestServer({ dev: true, accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } }, webhooks: { pollIntervalMs: 50 } });
  receiver = await WebhookReceiver.start();
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await t?.close();
  cleanupTempDirs();
});

describe('portal webhook section in Chromium', () => {
  it('saves a verified URL, shows the delivery, and sends it again', async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${t.server.url}/signup?next=/developers`);
    await page.fill('#login', 'hook_browser');
    await page.fill('#display_name', 'Hook');
    await page.fill('#password', 'correct horse battery');
    await page.click('#sign-up');
    await page.waitForURL(`${t.server.url}/developers`);
    await page.fill('#new-name', 'Webhook Quest');
    await page.click('#create-app');
    await page.waitForSelector('#created-secrets');
    const appId = (await page.textContent('#application-id'))!.trim();
    receiver.publicKey = (await page.textContent('#verify-key'))!.trim();
    expect(receiver.publicKey).toMatch(/^[0-9a-f]{64}$/);

    await page.fill('#webhooks-url', receiver.url);
    await page.check('#webhooks-enabled');
    await page.check('input[name="type_LOBBY_MESSAGE_CREATE"]');
    await page.click('#save-webhooks');
    await page.waitForURL(/saved=webhooks/);
    await expect(page.getAttribute('#webhooks-status', 'data-status')).resolves.toBe('2');
    expect(receiver.received.some((r) => r.body?.type === 0 && r.verified)).toBe(true);
    await page.locator('#webhooks').screenshot({ path: join(RESULTS, 'portal-webhooks.png') });

    const guest = await t.req('POST', '/partner-sdk/token', { body: { client_id: appId, external_auth_type: 'DEVICE_ID', external_auth_token: 'b'.repeat(32) } });
    const lobby = (await t.req('PUT', '/lobbies', { token: guest.body.access_token, body: { secret: 'browser-room' } })).body;
    await t.req('POST', `/lobbies/${lobby.id}/messages`, { token: guest.body.access_token, body: { content: 'hello browser' } });
    await receiver.waitFor(() => receiver.events().length === 1);
    const eventId = receiver.events()[0]!.body.id as string;

    await page.click('#webhook-deliveries');
    const row = page.locator(`tr[data-event-id="${eventId}"]`);
    for (let i = 0; i < 50 && (await row.locator('.state').textContent()) !== 'delivered'; i++) {
      await page.waitForTimeout(100);
      await page.reload();
    }
    await expect(row.locator('.state').textContent()).resolves.toBe('delivered');
    await page.screenshot({ path: join(RESULTS, 'portal-webhook-deliveries.png'), fullPage: true });
    await row.locator('button', { hasText: 'Send again' }).click();
    await page.waitForURL(/saved=webhooks/);
    await receiver.waitFor(() => receiver.events().filter((e) => e.body.id === eventId).length === 2);
    await context.close();
  }, 90_000);
});
