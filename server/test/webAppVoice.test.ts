// Guild voice in the web app, in headless Chromium with fake microphones: Ada and Bo (one guild)
// open its voice channel and press "Join voice"; the client SDK loads on demand (voice.js, not
// part of app.js), joins the channel's call with the page's first-party token, and both pages
// list both of them. While Ada holds push-to-talk (the V key, then the Talk button), Bo's page
// shows her speaking; released, the indicator goes off. A page opened while they are in the
// channel lists both from GUILD_CREATE's voice_states. Screenshots go to test-results/.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_MEDIA_ARGS, launchChromium } from '../../tools/testing/chromium.ts';
import { build } from '../web/build.mjs';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';

const RESULTS = join(resolve(fileURLToPath(new URL('../../', import.meta.url))), 'test-results');

let t: TestServer;
let browser: Browser;
const problems: string[] = [];
/** Every URL the pages asked for, sockets included: the session token must be in none. */
const urls: string[] = [];

beforeAll(async () => {
  mkdirSync(RESULTS, { recursive: true });
  await build();
  t = await startTestServer({ accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } } });
  browser = await launchChromium(FAKE_MEDIA_ARGS);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  cleanupTempDirs();
});

/** A signed-up person's /app page; their session token is kept from the /app/session answer. */
async function person(login: string, name: string, next = '/app'): Promise<{ page: Page; token: () => string; scripts: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  let token = '';
  const scripts: string[] = [];
  page.on('response', (r) => {
    if (new URL(r.url()).pathname === '/app/session' && r.status() === 200) void r.json().then((b: { token: string }) => (token = b.token));
  });
  page.on('websocket', (ws) => void urls.push(ws.url()));
  page.on('request', (r) => {
    urls.push(r.url());
    if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${login}: HTTP ${r.status()} ${new URL(r.url()).pathname}`);
  });
  page.on('pageerror', (e) => void problems.push(`${login}: ${e.message}`));
  page.on('console', (m) => {
    // Chromium's own /favicon.ico request (the server has none) is not a page request; the
    // page's own requests are checked by the response listener above.
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`${login}: ${m.text()}`);
  });
  await page.goto(`${t.server.url}${next}`);
  await page.click('a[href^="/signup"]');
  await page.fill('#login', login);
  await page.fill('#display_name', name);
  await page.fill('#password', 'correct horse battery');
  await page.click('#sign-up');
  await page.waitForURL(`${t.server.url}${next}`);
  return { page, token: () => token, scripts };
}

const speakingOn = (page: Page, userId: string) => page.getAttribute(`#voice-participants [data-user-id="${userId}"]`, 'data-speaking').catch(() => null);

describe('guild voice in the web app', () => {
  it('two members join the voice channel; push-to-talk on one page shows them speaking on the other', { timeout: 240_000 }, async () => {
    const ada = await person('ada_voice', 'Ada Voice');
    await ada.page.waitForSelector('#home');
    await ada.page.fill('#guild-name', 'Voice Pals');
    await ada.page.click('#create-guild-submit');
    await ada.page.waitForURL(/\/app\/guilds\/\d+$/);
    const guildId = /\/app\/guilds\/(\d+)$/.exec(ada.page.url())![1]!;
    await expect.poll(() => ada.token(), { timeout: 10_000 }).not.toBe('');
    const auth = { authorization: ada.token() };
    const channels = (await t.req('GET', `/guilds/${guildId}/channels`, { headers: auth })).body as { id: string; type: number }[];
    const voice = channels.find((c) => c.type === 2) ?? (await t.req('POST', `/guilds/${guildId}/channels`, { headers: auth, body: { name: 'Hangout', type: 2 } })).body;
    const text = channels.find((c) => c.type === 0)!;
    const invite = await t.req('POST', `/channels/${text.id}/invites`, { headers: auth, body: {} });
    expect(invite.status).toBe(200);

    const bo = await person('bo_voice', 'Bo Voice', `/app/invite/${invite.body.code}`);
    await bo.page.click('#accept-invite');
    await bo.page.waitForURL(`${t.server.url}/app/guilds/${guildId}`);
    const adaId = (await t.req('GET', '/users/@me', { headers: auth })).body.id as string;
    const boId = (await t.req('GET', '/users/@me', { headers: { authorization: bo.token() } })).body.id as string;

    const voiceUrl = `${t.server.url}/app/guilds/${guildId}/channels/${voice.id}`;
    for (const p of [ada, bo]) {
      await p.page.goto(voiceUrl);
      await p.page.waitForSelector('#join-voice');
      // The SDK is not loaded until someone joins.
      expect(p.scripts).not.toContain('/app/assets/voice.js');
    }
    for (const p of [ada, bo]) await p.page.click('#join-voice');
    for (const p of [ada, bo]) {
      expect(p.scripts).toContain('/app/assets/voice.js');
      await expect.poll(() => p.page.getAttribute('#voice-panel', 'data-status'), { timeout: 60_000 }).toBe('4');
      await expect.poll(() => p.page.getAttribute('#voice-panel', 'data-e2ee'), { timeout: 60_000 }).toBe('true');
      await expect
        .poll(async () => (await p.page.locator('#voice-participants [data-user-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-user-id')))).sort(), { timeout: 30_000 })
        .toEqual([adaId, boId].sort());
    }
    // The server holds both in the channel's call (keyed by the channel ID).
    expect((await t.req('GET', `/guilds/${guildId}/voice-states/${adaId}`, { headers: { authorization: bo.token() } })).body.channel_id).toBe(voice.id);
    await expect.poll(() => bo.page.textContent(`#voice-participants [data-user-id="${adaId}"]`)).toContain('Ada Voice');

    // A page opened now (a second tab of Ada's, not in the call) lists both at once: the web app
    // seeds its voice map from GUILD_CREATE's voice_states, with no voice state change since.
    const late = await ada.page.context().newPage();
    late.on('pageerror', (e) => void problems.push(`late tab: ${e.message}`));
    await late.goto(voiceUrl);
    await late.waitForSelector('#join-voice');
    await expect
      .poll(async () => (await late.locator('#voice-participants [data-user-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-user-id')))).sort(), { timeout: 30_000 })
      .toEqual([adaId, boId].sort());
    expect(await late.getAttribute('#voice-panel', 'data-state')).toBe('out');
    await late.screenshot({ path: join(RESULTS, 'webapp-voice-late-page.png') });
    await late.close();

    // Nobody holds push-to-talk: Ada is not shown speaking on Bo's page (the fake mic beeps).
    await bo.page.waitForTimeout(1500);
    expect(await speakingOn(bo.page, adaId)).toBe('false');

    // Ada holds V: Bo's page shows her speaking.
    await ada.page.locator('#voice-status').click();
    await ada.page.keyboard.down('v');
    await expect.poll(() => ada.page.getAttribute('#push-to-talk', 'aria-pressed'), { timeout: 10_000 }).toBe('true');
    await expect.poll(() => speakingOn(bo.page, adaId), { timeout: 30_000 }).toBe('true');
    await bo.page.screenshot({ path: join(RESULTS, 'webapp-voice-listener.png') });
    await ada.page.screenshot({ path: join(RESULTS, 'webapp-voice-speaker.png') });
    await ada.page.keyboard.up('v');
    await expect.poll(() => speakingOn(bo.page, adaId), { timeout: 30_000 }).toBe('false');

    // The on-screen button works the same way (held with the pointer).
    const box = (await ada.page.locator('#push-to-talk').boundingBox())!;
    await ada.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await ada.page.mouse.down();
    await expect.poll(() => speakingOn(bo.page, adaId), { timeout: 30_000 }).toBe('true');
    await ada.page.mouse.up();
    await expect.poll(() => speakingOn(bo.page, adaId), { timeout: 30_000 }).toBe('false');

    // Leaving: Bo's list drops Ada.
    await ada.page.click('#leave-voice');
    await expect.poll(() => bo.page.locator(`#voice-participants [data-user-id="${adaId}"]`).count(), { timeout: 30_000 }).toBe(0);
    expect(problems).toEqual([]);
    // The SDK used the token in headers and Identify only: no URL carries it.
    expect(urls.some((u) => u.startsWith('ws') && u.includes('/voice'))).toBe(true);
    for (const token of [ada.token(), bo.token()]) expect(urls.filter((u) => u.includes(token))).toEqual([]);
  });
});
