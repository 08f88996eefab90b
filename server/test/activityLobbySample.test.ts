// The whole embedded-app flow, on the sample activity (samples/activity-lobby) in Chromium. A user
// launches it from a guild voice channel's shelf in the web app; inside the iframe the unmodified
// @discord/embedded-app-sdk completes ready(), authorize (consent in the web app) + authenticate,
// with the token exchange through /.proxy/api/token and /api/token alike (the sample's own backend
// behind the /api mapping); shareLink with a custom_id (its referrer_id silently dropped);
// getSkus and startPurchase from the sample's shop (the checkout completes, ENTITLEMENT_CREATE
// reaches the activity); getRelationships (the friend mark); patchUrlMappings for the /platform
// mapping, through which our client SDK's REST, Gateway and voice reach the platform. A second user
// (a phone-sized window) opens the shared link, joins the same instance and lobby, they chat, and
// push-to-talk from one is heard in the other (audio level and the speaking ring).
// Screenshots test-results/activity-lobby-*.png.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_MEDIA_ARGS, ensureCoreWasmBuilt, launchChromium } from '../../tools/testing/chromium.ts';
import { ActivityService } from '../src/activities/ActivityService.ts';
import { UrlPolicy } from '../src/config/urlPolicy.ts';
import { LocalEventBus } from '../src/events/EventBus.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { build } from '../web/build.mjs';
import { build as buildSample } from '../../samples/activity-lobby/build.mjs';
import { startTokenBackend } from '../../samples/activity-lobby/server.mjs';
import { activityFrame, PROXY_HOST_RULE, RESULTS, signUp } from './activityBrowserHelpers.ts';
import { cleanupTempDirs, startTestServer, tempDir, type TestServer } from './harness.ts';

const bus = new LocalEventBus();
let t: TestServer;
let browser: Browser;
let backend: { port: number; close(): Promise<void> };
let sku: string;

beforeAll(async () => {
  mkdirSync(RESULTS, { recursive: true });
  ensureCoreWasmBuilt();
  await build();
  // Built as `npm run build` builds it, into a games folder of its own (a dist/ under samples/
  // would be hosted by every local `npm start`), and hosted by the platform at /games/activity-lobby/.
  const games = tempDir();
  await buildSample({ outdir: join(games, 'activity-lobby', 'dist') });
  t = await startTestServer({ dev: true, bus, accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } }, commerce: { scheduler: false }, serveSamples: true, samplesDir: games });
  sku = (await t.server.commerce.createSku(t.app.id, { name: 'Golden Hat', type: 'durable', price: 199 })).id;
  await t.server.commerce.checkout.setTestMode(t.app.id, true);
  backend = await startTokenBackend({ platform: t.server.url, clientId: t.app.id, clientSecret: t.app.clientSecret });
  await new ActivityService(t.server.store, new UrlPolicy(true)).updateSettings(t.app.id, {
    enabled: true,
    url_mappings: [
      { prefix: '/', target: `${t.server.url}/games/activity-lobby` },
      { prefix: '/api', target: `http://127.0.0.1:${backend.port}` },
      { prefix: '/platform', target: t.server.url },
    ],
  });
  browser = await launchChromium([PROXY_HOST_RULE, ...FAKE_MEDIA_ARGS]);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await backend?.close();
  cleanupTempDirs();
});

/** Allows the consent dialog and waits until the sample is in its lobby (or says why not). */
async function consentAndJoin(page: Page, frame: Frame): Promise<string> {
  await page.waitForSelector('#activity-consent');
  await page.click('#activity-consent-allow');
  await frame.waitForFunction(() => document.body.dataset.lobbyId !== undefined || document.getElementById('status')!.classList.contains('error'), undefined, { timeout: 60_000 });
  expect(await frame.textContent('#status')).not.toMatch(/^Could not/);
  return (await frame.evaluate(() => document.body.dataset.lobbyId))!;
}

const callState = (f: Frame) =>
  f.evaluate(() => {
    const call = window.__activity.lobby?.voice.call;
    return call ? { status: call.getStatus(), e2ee: call.isE2eeReady(), level: call.getPlaybackLevel() } : null;
  });

/** The frame's layout: nothing wider than the frame, the field visible below the bar. */
async function expectLayoutFits(f: Frame): Promise<void> {
  const layout = await f.evaluate(() => {
    const right = Math.max(...[...document.querySelectorAll('header > *, .controls > *')].map((e) => e.getBoundingClientRect().right));
    const canvas = document.querySelector('#game canvas')!.getBoundingClientRect();
    return { width: innerWidth, height: innerHeight, right, scrollWidth: document.documentElement.scrollWidth, canvas: { top: canvas.top, bottom: canvas.bottom, width: canvas.width, height: canvas.height } };
  });
  expect(layout.scrollWidth).toBeLessThanOrEqual(layout.width);
  expect(layout.right).toBeLessThanOrEqual(layout.width);
  expect(layout.canvas.bottom).toBeLessThanOrEqual(layout.height + 1);
  expect(layout.canvas.height).toBeGreaterThan(150);
}

describe('the sample activity (samples/activity-lobby) in Chromium', () => {
  it("runs end to end: SDK commands, the shared link, one lobby with chat and voice", async () => {
    const errors: string[] = [];
    const ctxA = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const a = await ctxA.newPage();
    a.on('pageerror', (e) => void errors.push(e.message));
    const ada = await signUp(a, t, 'ada_lobby', 'Ada');
    const adaToken = await t.server.store.tokens.issue(ada, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds', 'relationships.read', 'relationships.write'], 3600);
    const g = (await t.req('POST', '/guilds', { token: adaToken, body: { name: 'Lobby Guild' } })).body;
    const channels = (await t.req('GET', `/guilds/${g.id}/channels`, { token: adaToken })).body as any[];
    const voice = channels.find((c) => c.type === 2).id;
    const text = channels.find((c) => c.type === 0).id;
    await guildServicesFor(t.server.store, bus).installBot(g.id, t.app.id, 0n);

    // Launched from the voice channel's shelf; the sample signs in with the code exchanged at /.proxy/api/token.
    await a.goto(`${t.server.url}/app/guilds/${g.id}/channels/${voice}`);
    await a.click(`#activity-shelf li[data-application-id="${t.app.id}"] .activity-shelf-launch`);
    const fa = await activityFrame(a);
    const lobbyId = await consentAndJoin(a, fa);
    const ready = await fa.evaluate(() => ({ instanceId: window.__activity.sdk!.instanceId, channelId: window.__activity.sdk!.channelId, guildId: window.__activity.sdk!.guildId, customId: window.__activity.sdk!.customId, user: window.__activity.lobby!.userId }));
    expect(ready).toMatchObject({ channelId: voice, guildId: g.id, customId: null, user: ada });
    // The exchange answers on both paths (prompt none: granted already, no dialog), each a token of Ada's.
    for (const path of ['/api/token', '/.proxy/api/token']) {
      const token = await fa.evaluate((p) => window.__activity.exchange(p), path);
      expect((await t.req('GET', '/users/@me', { token })).body.id).toBe(ada);
    }
    // patchUrlMappings: the client SDK's calls to the platform went to the proxy host's /platform mapping.
    const platformCalls = await fa.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => /\/platform\/api\//.test(n)));
    expect(platformCalls.length).toBeGreaterThan(0);
    for (const url of platformCalls) expect(new URL(url).host).toBe(`${t.app.id}.activities.localhost:${new URL(t.server.url).port}`);

    // Invite = shareLink: the web app's share dialog holds the link with the custom_id, no referrer.
    await fa.click('#invite');
    await a.waitForSelector('#activity-share');
    const link = await a.inputValue('#activity-share-url');
    expect(link).toContain(`/app/activity/${t.app.id}?`);
    expect(new URL(link).searchParams.get('custom_id')).toBe(`lobby-${ready.instanceId}`.slice(0, 64));
    expect(link).not.toContain('referrer');
    expect(link).not.toContain(ada);
    await a.click('#activity-share-done');
    await expect.poll(() => fa.evaluate(() => window.__activity.lastShare), { timeout: 15_000 }).toEqual({ success: true, didCopyLink: false, didSendMessage: false });

    // The shop: getSkus lists the SKU, Buy is startPurchase; the checkout completes over the
    // activity and ENTITLEMENT_CREATE marks it owned.
    await fa.click('#store');
    const buy = `#store-panel li[data-sku-id="${sku}"] .buy`;
    await fa.waitForSelector(buy);
    expect(await fa.textContent(`#store-panel li[data-sku-id="${sku}"]`)).toContain('Golden Hat');
    await a.screenshot({ path: join(RESULTS, 'activity-lobby-shop.png') });
    await fa.click(buy);
    await a.waitForSelector('#checkout[data-step="confirm"]');
    await a.screenshot({ path: join(RESULTS, 'activity-lobby-checkout.png') });
    await a.click('#checkout-buy');
    await a.waitForSelector('#checkout-done');
    await a.click('#checkout-ok');
    await expect.poll(() => fa.evaluate((id) => window.__activity.store!.owned.has(id), sku), { timeout: 15_000 }).toBe(true);
    expect(await fa.textContent(buy)).toBe('Owned');
    await fa.click('#store-panel .close');

    // The second user, a friend of Ada's, on a phone-sized window, opens the shared link.
    const ctxB = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const b = await ctxB.newPage();
    b.on('pageerror', (e) => void errors.push(e.message));
    const bo = await signUp(b, t, 'bo_lobby', 'Bo');
    const boToken = await t.server.store.tokens.issue(bo, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds', 'relationships.read', 'relationships.write'], 3600);
    const inv = await t.req('POST', `/channels/${text}/invites`, { token: adaToken, body: {} });
    expect((await t.req('POST', `/invites/${inv.body.code}`, { token: boToken })).status).toBe(200);
    expect((await t.req('POST', '/users/@me/relationships', { token: adaToken, body: { username: 'bo_lobby' } })).status).toBe(204);
    expect((await t.req('POST', '/users/@me/relationships', { token: boToken, body: { username: 'ada_lobby' } })).status).toBe(204);
    await b.goto(link);
    const fb = await activityFrame(b);
    expect(await consentAndJoin(b, fb)).toBe(lobbyId);
    expect(await fb.evaluate(() => ({ instanceId: window.__activity.sdk!.instanceId, customId: window.__activity.sdk!.customId }))).toEqual({ instanceId: ready.instanceId, customId: `lobby-${ready.instanceId}`.slice(0, 64) });
    const instance = await t.req('GET', `/applications/${t.app.id}/activity-instances/${ready.instanceId}`, { token: t.app.botToken, bot: true });
    expect(instance.body.users.sort()).toEqual([ada, bo].sort());

    // getRelationships: Ada's activity marks Bo, her friend, once he is in the lobby.
    await expect.poll(() => fa.evaluate(() => window.__activity.friends), { timeout: 15_000 }).toEqual([bo]);
    expect(await fa.textContent('#friends')).toBe('Friends here: Bo');

    // Lobby chat in the plugin's panel (folded to its title bar on the phone: Bo opens it).
    await fa.fill('.sl-chat-input', 'hello from Ada');
    await fa.click('.sl-chat-send');
    await fb.click('.sl-chat .sl-panel-toggle');
    await fb.waitForSelector('.sl-chat-message:has-text("hello from Ada")', { timeout: 15_000 });
    await fb.fill('.sl-chat-input', 'hi Ada, Bo here');
    await fb.click('.sl-chat-send');
    await fa.waitForSelector('.sl-chat-message:has-text("hi Ada, Bo here")', { timeout: 15_000 });

    // The scene draws on demand: idle, its loop sleeps. Ada clicks the field: her avatar walks
    // there on Bo's screen (member state through the lobby), and both loops go back to sleep.
    for (const f of [fa, fb]) await expect.poll(() => f.evaluate(() => window.__activity.isDrawing()), { timeout: 15_000 }).toBe(false);
    const canvas = (await fa.locator('#game canvas').boundingBox())!;
    await fa.locator('#game canvas').click({ position: { x: (700 / 1024) * canvas.width, y: (300 / 640) * canvas.height } });
    await expect
      .poll(async () => {
        const p = await fb.evaluate((id) => window.__activity.avatarPosition(id), ada);
        return p ? Math.hypot(p.x - 700, p.y - 300) : Infinity;
      }, { timeout: 20_000 })
      .toBeLessThan(6);
    for (const f of [fa, fb]) await expect.poll(() => f.evaluate(() => window.__activity.isDrawing()), { timeout: 15_000 }).toBe(false);

    // Voice in the lobby: both join; Ada holds Talk; Bo hears her and sees her speaking ring.
    await fa.click('#voice');
    await fb.click('#voice');
    for (const f of [fa, fb]) await expect.poll(() => callState(f), { timeout: 45_000 }).toMatchObject({ status: 4, e2ee: true });
    expect(await fa.textContent('#voice-hint')).toBe('Hold V or Talk');
    // The voice gateway's WebSocket went through the proxy host's /platform mapping; media rides
    // the WebRTC data channel, which the activity's CSP does not govern.
    const call = t.server.voice.existingCall(lobbyId);
    expect([...call!.sessions.values()].map((s) => s.selectedProtocol)).toEqual(['webrtc', 'webrtc']);
    const talk = (await fa.locator('#talk').boundingBox())!;
    await a.mouse.move(talk.x + talk.width / 2, talk.y + talk.height / 2);
    await a.mouse.down();
    let loudest = 0;
    await expect
      .poll(async () => (loudest = Math.max(loudest, (await callState(fb))!.level)), { timeout: 30_000, interval: 50 })
      .toBeGreaterThan(0.01);
    await expect.poll(() => fb.evaluate((id) => window.__activity.isSpeakingShown(id), ada), { timeout: 15_000 }).toBe(true);
    await a.screenshot({ path: join(RESULTS, 'activity-lobby-desktop.png') });
    await b.screenshot({ path: join(RESULTS, 'activity-lobby-phone.png') });
    for (const f of [fa, fb]) await expectLayoutFits(f);
    // Released: the ring goes off (queued audio on a loaded machine drains first).
    await a.mouse.up();
    await expect.poll(() => fb.evaluate((id) => window.__activity.isSpeakingShown(id), ada), { timeout: 20_000 }).toBe(false);

    expect(errors).toEqual([]);
    await ctxA.close();
    await ctxB.close();
  }, 300_000);

  it('is not a dead end outside the web app: the landing page says how to launch it, and the page opened alone says what it is', async () => {
    const landing = await (await fetch(`${t.server.url}/`)).text();
    expect(landing).toContain('<h2>Activities</h2>');
    expect(landing).not.toContain('href="/games/activity-lobby/"');
    expect(landing).toContain(`--app ${t.app.id} --dev --activities true`);
    expect(landing).toContain(`--url-mapping /=${t.server.url}/games/activity-lobby`);
    expect(landing).toContain('href="/app"');

    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => void errors.push(e.message));
    await page.goto(`${t.server.url}/games/activity-lobby/`);
    await page.waitForSelector('#not-launched');
    expect(await page.textContent('#not-launched h2')).toBe('This game is an activity');
    // No button that looks live and does nothing, no error line.
    expect(await page.locator('button:visible').count()).toBe(0);
    expect(await page.locator('#status').count()).toBe(0);
    expect(await page.getAttribute('#not-launched a[href="/app"]', 'href')).toBe('/app');
    await page.screenshot({ path: join(RESULTS, 'activity-lobby-not-launched-phone.png') });
    expect(errors).toEqual([]);
    await ctx.close();
  }, 120_000);
});
