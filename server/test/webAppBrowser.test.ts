// The web app in headless Chromium, as two people use it: Ada signs up on a desktop, creates a
// guild and makes an invite link; Bo opens the link on a phone, signs up from it, accepts, and
// sees the member list with both of them; Ada's page shows Bo arrive over the Gateway. Channels
// that Ada adds out of order over REST show up live, by category in `position` order.
// Throughout, no session token appears in any URL (pages, API calls, the Gateway socket), in the
// console, in the page's storage or in the server's debug log. A page on another origin of the
// same host (so the same site: the session cookie goes along) cannot get a token.
// Screenshots at desktop (1280x800) and phone (390x844) sizes go to test-results/.
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../tools/testing/chromium.ts';
import { build } from '../web/build.mjs';
import { channelTree, type GuildChannel } from '../web/src/model/channels.ts';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { RESULTS, signUpFromLogin } from './webAppSignUp.ts';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let t: TestServer;
let browser: Browser;
let evil: Server;
const serverLog: string[] = [];
/** Every session token the pages were handed (read from the /app/session answers). */
const tokens: string[] = [];
/** Every URL the pages asked for, the Gateway socket's included, and every console line. */
const urls: string[] = [];
const consoleLines: string[] = [];

beforeAll(async () => {
  mkdirSync(RESULTS, { recursive: true });
  await build();
  t = await startTestServer({ accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } }, logLevel: 'debug', logSink: (line) => void serverLog.push(line) });
  browser = await launchChromium();
  // Another origin on the same host: same site, so SameSite=Lax lets the session cookie go along.
  evil = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Free prizes</title><h1>Win</h1>'));
  await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => evil?.close(r));
  await t?.close();
  cleanupTempDirs();
});

async function watchedPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('request', (r) => void urls.push(r.url()));
  page.on('websocket', (ws) => void urls.push(ws.url()));
  page.on('console', (m) => void consoleLines.push(m.text()));
  page.on('pageerror', (e) => void consoleLines.push(`pageerror: ${e.message}`));
  page.on('response', (r) => {
    if (new URL(r.url()).pathname === '/app/session' && r.status() === 200) void r.json().then((b: { token: string }) => tokens.push(b.token));
  });
  return page;
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(RESULTS, name) });
}

async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(scroll).toBeLessThanOrEqual(client);
}

const texts = (page: Page, selector: string) => page.locator(selector).allTextContents();

describe('the web app in Chromium', () => {
  let ada: BrowserContext;
  let adaPage: Page;

  it('two users: one creates a guild and invites the other by link; the other joins from a phone and sees the member list', async () => {
    ada = await browser.newContext({ viewport: DESKTOP });
    adaPage = await watchedPage(ada);
    await adaPage.goto(`${t.server.url}/app`);
    await signUpFromLogin(adaPage, 'ada_web', 'Ada Lovelace');
    await adaPage.waitForURL(`${t.server.url}/app`);
    await adaPage.waitForSelector('#home');
    await expect(adaPage.textContent('#home h1')).resolves.toBe('Hi, Ada Lovelace');
    await shot(adaPage, 'webapp-desktop-home.png');

    // Create a guild from the home page.
    await adaPage.fill('#guild-name', 'Pixel Pals');
    await adaPage.click('#create-guild-submit');
    await adaPage.waitForURL(/\/app\/guilds\/\d+$/);
    const guildId = /\/app\/guilds\/(\d+)$/.exec(adaPage.url())![1]!;
    await expect(adaPage.textContent('#guild-name')).resolves.toBe('Pixel Pals');
    expect(await adaPage.locator(`#guild-list a[data-guild-id="${guildId}"]`).count()).toBe(1);
    await adaPage.waitForSelector('#member-list .member');
    expect(await texts(adaPage, '#member-list .member-name')).toEqual(['Ada Lovelace ♛']);

    // Channels added over REST, out of order, arrive over the Gateway and are listed by category
    // and position: the page's order is the one the model derives from GET /guilds/{id}/channels.
    const token = tokens.at(-1)!;
    const rest = async (method: string, path: string, body?: unknown, status = 200) => {
      const r = await t.req(method, path, { headers: { authorization: token }, ...(body === undefined ? {} : { body }) });
      expect([path, r.status]).toEqual([path, status]);
      return r.body;
    };
    const lounge = await rest('POST', `/guilds/${guildId}/channels`, { name: 'Lounge', type: 4, position: 7 }, 201);
    await rest('POST', `/guilds/${guildId}/channels`, { name: 'zz-second', type: 0, parent_id: lounge.id, position: 2 }, 201);
    await rest('POST', `/guilds/${guildId}/channels`, { name: 'aa-first', type: 0, parent_id: lounge.id, position: 1 }, 201);
    // Outside any category, so first in the sidebar; the guild still opens on #general.
    await rest('POST', `/guilds/${guildId}/channels`, { name: 'aa-loose', type: 0 }, 201);
    await adaPage.waitForSelector('#channel-list a:has-text("aa-first")');
    await adaPage.waitForSelector('#channel-list a:has-text("aa-loose")');
    const channels = (await rest('GET', `/guilds/${guildId}/channels`)) as GuildChannel[];
    const expected = channelTree(channels).flatMap((g) => [...(g.category ? [g.category.name] : []), ...g.channels.map((c) => c.name)]);
    const shown = await adaPage.locator('#channel-list .channel-category, #channel-list .channel-name').allTextContents();
    expect(shown).toEqual(expected);
    const loungeShown = shown.slice(shown.indexOf('Lounge'));
    expect(loungeShown.slice(0, 3)).toEqual(['Lounge', 'aa-first', 'zz-second']);

    // The invite link.
    await adaPage.click('#open-invite');
    await adaPage.click('#create-invite');
    await adaPage.waitForSelector('#invite-link');
    const link = await adaPage.inputValue('#invite-link');
    expect(link).toMatch(new RegExp(`^${t.server.url}/app/invite/[A-Za-z0-9-]{1,16}$`));
    await shot(adaPage, 'webapp-desktop-invite.png');

    // Bo opens the link on a phone, is asked to sign in, signs up from there and comes back to it.
    const bo = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    const boPage = await watchedPage(bo);
    await boPage.goto(link);
    await signUpFromLogin(boPage, 'bo_web', 'Bo Peep');
    await boPage.waitForURL(link);
    await boPage.waitForSelector('#accept-invite');
    await expect(boPage.textContent('#invite-guild-name')).resolves.toBe('Pixel Pals');
    await expect(boPage.textContent('#invite-accept')).resolves.toContain('Ada Lovelace invited you');
    await expectNoHorizontalOverflow(boPage);
    await shot(boPage, 'webapp-phone-invite.png');

    await boPage.click('#accept-invite');
    await boPage.waitForURL(`${t.server.url}/app/guilds/${guildId}`);
    await boPage.waitForSelector('#guild-name');
    // The guild opens on its first text channel by position, not the sidebar's first (aa-loose).
    // Waited for: the channel's tab is filled in once the channel has loaded.
    await boPage.waitForFunction(() => (document.querySelector('#channel-list a[aria-current="page"] .channel-name')?.textContent ?? '') !== '', undefined, { timeout: 30_000 });
    await expect(boPage.locator('.ui-tab[data-tab="channel"]').textContent()).resolves.toBe('#general');
    await expect(boPage.locator('#channel-list a[aria-current="page"] .channel-name').textContent()).resolves.toBe('general');
    // On a phone one pane shows at a time: the channel first, the members under their tab.
    await expect(boPage.locator('#member-list').isVisible()).resolves.toBe(false);
    await boPage.click('.ui-tab[data-tab="members"]');
    await boPage.waitForSelector('#member-list .member >> nth=1');
    expect((await texts(boPage, '#member-list .member-name')).sort()).toEqual(['Ada Lovelace ♛', 'Bo Peep']);
    await expectNoHorizontalOverflow(boPage);
    await shot(boPage, 'webapp-phone-members.png');
    await boPage.click('.ui-tab[data-tab="channels"]');
    await expect(boPage.locator('#channel-list').isVisible()).resolves.toBe(true);
    await expectNoHorizontalOverflow(boPage);
    await shot(boPage, 'webapp-phone-channels.png');
    // A link that is not an invite (or no longer one) says so.
    await boPage.goto(`${t.server.url}/app/invite/nope-0000`);
    await expect(boPage.locator('#invite-problem').textContent()).resolves.toBe('This invite is invalid or has expired.');

    // Ada's page hears Bo join over the Gateway (GUILD_MEMBER_ADD), without a reload.
    await adaPage.click('#invite-panel button:has-text("Close")');
    await adaPage.waitForSelector('#member-list .member >> nth=1');
    expect((await texts(adaPage, '#member-list .member-name')).sort()).toEqual(['Ada Lovelace ♛', 'Bo Peep']);
    await expectNoHorizontalOverflow(adaPage);
    await shot(adaPage, 'webapp-desktop-members.png');

    // Ada's roles show on her member entry once she has one.
    const role = await rest('POST', `/guilds/${guildId}/roles`, { name: 'Mods', hoist: true, color: 0x3ba55d });
    const me = await t.req('GET', '/users/@me', { headers: { authorization: token } });
    const put = await t.req('PUT', `/guilds/${guildId}/members/${me.body.id}/roles/${role.id}`, { headers: { authorization: token } });
    expect(put.status).toBe(204);
    await adaPage.waitForSelector(`#member-list .role-chip[data-role-id="${role.id}"]`);
    expect(await texts(adaPage, '#member-list .member-group-title')).toEqual(['Mods — 1', 'Members — 1']);
    await shot(adaPage, 'webapp-desktop-roles.png');
    await bo.close();
  });

  it('links a guild manager to the bot authorization page with the guild preselected', async () => {
    await adaPage.click('#open-add-bot');
    await adaPage.fill('#bot-app-id', t.app.id);
    await adaPage.fill('#bot-permissions', '2048');
    const href = await adaPage.getAttribute('#authorize-bot', 'href');
    const guildId = /\/app\/guilds\/(\d+)/.exec(adaPage.url())![1]!;
    expect(href).toBe(`/oauth2/authorize?client_id=${t.app.id}&scope=bot&permissions=2048&guild_id=${guildId}&disable_guild_select=true`);
    await adaPage.click('#authorize-bot');
    await adaPage.waitForURL(/\/oauth2\/authorize\?/);
    // The platform's own consent page, with this guild preselected and the permission named.
    await expect(adaPage.title()).resolves.toContain('Test Game');
    await expect(adaPage.inputValue('#guild_id')).resolves.toBe(guildId);
    await expect(adaPage.textContent('#permissions')).resolves.toContain('SendMessages');
    await adaPage.click('#authorize');
    await adaPage.waitForSelector('text=Test Game was added');
    // Back in the app, the bot is a member with its managed role.
    await adaPage.goto(`${t.server.url}/app/guilds/${guildId}`);
    await adaPage.waitForSelector('#member-list .bot-badge');
    expect(await texts(adaPage, '#member-list .member-name')).toContain('Test GameBOT');
    await shot(adaPage, 'webapp-desktop-bot.png');
  });

  it('never puts a session token in a URL, the console, the page\'s storage or the server\'s log', async () => {
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    expect(urls.some((u) => u.includes('/gateway'))).toBe(true);
    for (const token of tokens) {
      expect(urls.filter((u) => u.includes(token))).toEqual([]);
      expect(consoleLines.filter((l) => l.includes(token))).toEqual([]);
      expect(serverLog.filter((l) => l.includes(token))).toEqual([]);
    }
    await adaPage.goto(`${t.server.url}/app`);
    await adaPage.waitForSelector('#home');
    const stored = await adaPage.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }));
    for (const token of tokens) expect(stored).not.toContain(token);
    // The session cookie is HttpOnly: the page's script cannot read it either.
    expect(stored).not.toContain('sl_session');
    expect(consoleLines.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  });

  it('gives a page on another origin of the same host no token, though the browser sends it the session cookie; signing out revokes the page\'s token', async () => {
    const before = tokens.length;
    const countTokens = async () => Number((await t.server.store.database.db.selectFrom('access_tokens').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const issued = await countTokens();
    const page = await ada.newPage();
    await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
    const target = t.server.url;
    const outcome = await page.evaluate(async (server) => {
      const result: Record<string, string> = {};
      // 1. The hand-off itself, as the app calls it: the preflight is not approved.
      try {
        const r = await fetch(`${server}/app/session`, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json', 'x-csrf-token': 'guess' }, body: '{}' });
        result.exchange = `read ${r.status} ${await r.text()}`;
      } catch (e) {
        result.exchange = `blocked: ${(e as Error).name}`;
      }
      // 2. Reading the page for its CSRF token: CORS withholds the answer.
      try {
        const r = await fetch(`${server}/app`, { credentials: 'include' });
        result.page = `read ${r.status} ${(await r.text()).slice(0, 40)}`;
      } catch (e) {
        result.page = `blocked: ${(e as Error).name}`;
      }
      // 3. A request that needs no preflight: sent, but refused by the server and unreadable.
      const opaque = await fetch(`${server}/app/session`, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{}' });
      result.noCors = `${opaque.type} ${opaque.status} ${await opaque.text()}`;
      // 4. Framing the app to read it: refused by frame-ancestors / X-Frame-Options.
      const frame = document.createElement('iframe');
      frame.src = `${server}/app`;
      document.body.append(frame);
      await new Promise((r) => setTimeout(r, 500));
      try {
        result.frame = `read ${frame.contentDocument?.body?.innerHTML ?? 'nothing'}`;
      } catch (e) {
        result.frame = `blocked: ${(e as Error).name}`;
      }
      return result;
    }, target);
    expect(outcome.exchange).toBe('blocked: TypeError');
    expect(outcome.page).toBe('blocked: TypeError');
    expect(outcome.noCors).toBe('opaque 0 ');
    expect(outcome.frame).toMatch(/^blocked: SecurityError$|^read nothing$/);
    // Nothing was issued for any of it.
    expect(tokens.length).toBe(before);
    expect(await countTokens()).toBe(issued);
    await page.close();

    // Signing out from the app ends the cookie session and revokes the tokens the page had.
    const last = tokens.at(-1)!;
    expect((await t.req('GET', '/users/@me', { headers: { authorization: last } })).status).toBe(200);
    await adaPage.click('#sign-out');
    await adaPage.waitForURL(/\/login\?next=%2Fapp$/);
    expect((await t.req('GET', '/users/@me', { headers: { authorization: last } })).status).toBe(401);
    await adaPage.goto(`${t.server.url}/app`);
    expect(new URL(adaPage.url()).pathname).toBe('/login');
    await ada.close();
  });
});
