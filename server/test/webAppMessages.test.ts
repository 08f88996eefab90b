// The web app's channel view in headless Chromium (issue 11), two people in one guild: Ada on a
// desktop (1280x800), Bo on a phone (390x844). Ada posts and Bo sees it live, with Ada's typing
// shown to Bo first; Bo replies and Ada sees the reply with its quote; Ada edits and deletes her
// own message (Bo has no Edit or Delete on it) and Bo's page follows; Ada uploads an image marked
// as a spoiler from the composer and Bo sees it blurred until he taps it; a pin appears live in
// Bo's open pins panel; a bot's embed and a forward (message_snapshots) render; the search box
// asks Search Guild Messages. Then a DM: Bo presses Message on Ada in the member list, Ada sees
// the conversation arrive on her DM page and answers live. No page error, no failed request, nothing cut off on the phone.
// Screenshots: test-results/webapp-messages-*.png.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../tools/testing/chromium.ts';
import { build } from '../web/build.mjs';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { messageServiceFor } from '../src/messages/MessageService.ts';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';

const RESULTS = join(resolve(fileURLToPath(new URL('../../', import.meta.url))), 'test-results');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let t: TestServer;
let browser: Browser;
const problems: string[] = [];

/** A small RGB PNG (a diagonal colour gradient), so the preview has something to blur. */
function png(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x++) raw.set([(x * 255) / width, (y * 255) / height, 160], row + 1 + x * 3);
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

beforeAll(async () => {
  mkdirSync(RESULTS, { recursive: true });
  await build();
  t = await startTestServer({ accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } } });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  cleanupTempDirs();
});

async function person(login: string, name: string, viewport: { width: number; height: number }, next = '/app'): Promise<{ page: Page; token: () => string }> {
  const context = await browser.newContext({ viewport, ...(viewport === PHONE ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}) });
  const page = await context.newPage();
  let token = '';
  page.on('response', (r) => {
    if (new URL(r.url()).pathname === '/app/session' && r.status() === 200) void r.json().then((b: { token: string }) => (token = b.token));
    if (r.status() >= 400) problems.push(`${login}: HTTP ${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
  });
  page.on('pageerror', (e) => void problems.push(`${login}: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`${login}: ${m.text()}`);
  });
  await page.goto(`${t.server.url}${next}`);
  await page.click('a[href^="/signup"]');
  await page.fill('#login', login);
  await page.fill('#display_name', name);
  await page.fill('#password', 'correct horse battery');
  await page.click('#sign-up');
  await page.waitForURL(`${t.server.url}${next}`);
  await expect.poll(() => token, { timeout: 10_000 }).not.toBe('');
  return { page, token: () => token };
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(RESULTS, `webapp-messages-${name}.png`) });
/** The message whose own text (not a reply's quote) contains `text`. */
const message = (page: Page, text: string) => page.locator('#message-list .msg').filter({ has: page.locator(':scope > .msg-row .msg-content', { hasText: text }) });

async function expectNothingCutOff(page: Page): Promise<void> {
  const r = await page.evaluate(() => {
    const doc = document.documentElement;
    const composer = document.getElementById('composer')!.getBoundingClientRect();
    return { scroll: doc.scrollWidth, client: doc.clientWidth, composerBottom: composer.bottom, composerRight: composer.right, height: window.innerHeight };
  });
  expect(r.scroll).toBeLessThanOrEqual(r.client);
  // The composer is on screen, whole.
  expect(r.composerBottom).toBeLessThanOrEqual(r.height);
  expect(r.composerRight).toBeLessThanOrEqual(r.client);
}

describe('the channel view in Chromium', () => {
  it('two people talk live: post, typing, reply, edit, delete, spoiler upload, pins, embed, forward, search', { timeout: 240_000 }, async () => {
    const ada = await person('ada_msgs', 'Ada Post', DESKTOP);
    await ada.page.waitForSelector('#home');
    await ada.page.fill('#guild-name', 'Chatters');
    await ada.page.click('#create-guild-submit');
    await ada.page.waitForURL(/\/app\/guilds\/\d+$/);
    const guildId = /\/app\/guilds\/(\d+)$/.exec(ada.page.url())![1]!;
    const adaAuth = { authorization: ada.token() };
    const text = ((await t.req('GET', `/guilds/${guildId}/channels`, { headers: adaAuth })).body as { id: string; type: number; name: string }[]).find((c) => c.type === 0)!;
    const invite = await t.req('POST', `/channels/${text.id}/invites`, { headers: adaAuth, body: {} });
    const bo = await person('bo_msgs', 'Bo Reader', PHONE, `/app/invite/${invite.body.code}`);
    await bo.page.click('#accept-invite');
    await bo.page.waitForURL(`${t.server.url}/app/guilds/${guildId}`);
    const adaId = (await t.req('GET', '/users/@me', { headers: adaAuth })).body.id as string;

    const url = `${t.server.url}/app/guilds/${guildId}/channels/${text.id}`;
    for (const p of [ada, bo]) {
      await p.page.goto(url);
      await p.page.waitForSelector('#composer-input');
      await p.page.waitForSelector('#message-list .msgs-start');
    }

    // Ada types: Bo sees it; then she sends, and Bo sees the message without reloading.
    await ada.page.fill('#composer-input', 'Hello Bo, welcome to ||the secret|| club');
    await ada.page.type('#composer-input', '!');
    await expect.poll(() => bo.page.textContent('#typing-indicator'), { timeout: 15_000 }).toBe('Ada Post is typing…');
    await ada.page.press('#composer-input', 'Enter');
    await message(bo.page, 'Hello Bo').waitFor({ timeout: 15_000 });
    await expect.poll(() => ada.page.inputValue('#composer-input'), { timeout: 15_000 }).toBe('');
    await expect.poll(() => bo.page.textContent('#typing-indicator'), { timeout: 15_000 }).toBe('');
    const hello = message(bo.page, 'Hello Bo');
    expect(await hello.getAttribute('data-author-id')).toBe(adaId);
    expect(await hello.locator('.msg-author').textContent()).toBe('Ada Post');
    // The ||spoiler|| in the text is hidden until tapped.
    expect(await hello.locator('.spoiler').getAttribute('data-spoiler')).toBe('hidden');
    // Bo has Reply and Pin on Ada's message, not Edit or Delete.
    await hello.click();
    expect(await hello.locator('.msg-edit-button').count()).toBe(0);
    expect(await hello.locator('.msg-delete').count()).toBe(0);
    await shot(bo.page, 'phone-live');

    // Bo replies from his phone; Ada sees the reply quoting her message.
    await hello.locator('.msg-reply').click();
    await bo.page.waitForSelector('#composer-reply');
    await bo.page.fill('#composer-input', 'Thanks Ada!');
    await bo.page.press('#composer-input', 'Enter');
    const reply = message(ada.page, 'Thanks Ada!');
    await reply.waitFor({ timeout: 15_000 });
    expect(await reply.locator('.msg-reply-to').textContent()).toContain('Ada Post');
    expect(await reply.locator('.msg-reply-to').textContent()).toContain('Hello Bo');
    // Cleared once Bo's send returns (Ada may see the reply over the Gateway before that).
    await expect.poll(() => bo.page.locator('#composer-reply').count(), { timeout: 15_000 }).toBe(0);

    // Ada edits her message; Bo's page shows the new text, marked edited, and the reply's quote follows.
    const adaHello = message(ada.page, 'Hello Bo');
    await adaHello.hover();
    await adaHello.locator('.msg-edit-button').click();
    await ada.page.fill('.msg-edit-input', 'Hello Bo, welcome to the club');
    await ada.page.press('.msg-edit-input', 'Enter');
    await message(bo.page, 'welcome to the club').locator('.msg-edited').waitFor({ timeout: 15_000 });
    expect(await message(bo.page, 'welcome to the club').locator('.msg-content').textContent()).toBe('Hello Bo, welcome to the club');

    // Ada sends and deletes a message: gone from both pages.
    await ada.page.fill('#composer-input', 'oops, wrong channel');
    await ada.page.press('#composer-input', 'Enter');
    await message(bo.page, 'oops').waitFor({ timeout: 15_000 });
    const oops = message(ada.page, 'oops');
    await oops.hover();
    await oops.locator('.msg-delete').click();
    await oops.locator('.msg-delete-confirm').click();
    await expect.poll(() => message(bo.page, 'oops').count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => message(ada.page, 'oops').count(), { timeout: 15_000 }).toBe(0);

    // Ada uploads an image from the composer, marked as a spoiler.
    await ada.page.setInputFiles('#composer-file-input', { name: 'sunset.png', mimeType: 'image/png', buffer: png(96, 64) });
    await ada.page.check('#composer-files input[type="checkbox"]');
    await ada.page.fill('#composer-input', 'look at this');
    await ada.page.click('#composer-send');
    const pic = message(bo.page, 'look at this');
    await pic.waitFor({ timeout: 15_000 });
    const att = pic.locator('.att');
    expect(await att.getAttribute('data-spoiler')).toBe('hidden');
    await expect.poll(() => pic.locator('img.att-image').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: 10_000 }).toBe(96);
    expect(await pic.locator('img.att-image').evaluate((img) => getComputedStyle(img).filter)).toContain('blur');
    await pic.scrollIntoViewIfNeeded();
    await shot(bo.page, 'phone-spoiler-hidden');
    await att.click();
    await expect.poll(() => att.getAttribute('data-spoiler'), { timeout: 10_000 }).toBe('revealed');
    await expect.poll(() => pic.locator('img.att-image').evaluate((img) => getComputedStyle(img).filter), { timeout: 10_000 }).toBe('none');
    await shot(bo.page, 'phone-spoiler-revealed');

    // A bot's embed and a forward of Ada's message (seeded over REST: the view renders what comes).
    const s = guildServicesFor(t.server.store, undefined as never);
    await s.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages | Permission.EmbedLinks);
    const helloId = await hello.getAttribute('data-message-id');
    const embed = await t.req('POST', `/channels/${text.id}/messages`, {
      token: t.app.botToken, bot: true,
      body: { embeds: [{ title: 'Match result', url: 'https://example.com/match', description: 'Blue team wins', color: 0x4cc38a, fields: [{ name: 'Score', value: '3 - 1', inline: true }, { name: 'MVP', value: 'Ada', inline: true }], footer: { text: 'Season 2' } }] },
    });
    expect(embed.status).toBe(200);
    const fwd = await t.req('POST', `/channels/${text.id}/messages`, { headers: adaAuth, body: { message_reference: { type: 1, message_id: helloId, channel_id: text.id } } });
    expect(fwd.status).toBe(200);
    for (const p of [ada, bo]) {
      await p.page.locator('#message-list .embed', { hasText: 'Match result' }).waitFor({ timeout: 15_000 });
      await p.page.locator(`#msg-${fwd.body.id} .msg-forward`, { hasText: 'welcome to the club' }).waitFor({ timeout: 15_000 });
    }
    expect(await bo.page.locator('.embed-title a').getAttribute('href')).toBe('https://example.com/match');
    expect(await bo.page.locator('.embed .embed-field-name').allTextContents()).toEqual(['Score', 'MVP']);

    // Bo opens the pins panel; Ada pins her message and it appears there live.
    await bo.page.click('#open-pins');
    await bo.page.waitForSelector('#pins-panel');
    await bo.page.locator('#pins-panel', { hasText: 'No pinned messages yet.' }).waitFor();
    const adaHello2 = message(ada.page, 'welcome to the club').first();
    await adaHello2.hover();
    await adaHello2.locator('.msg-pin').click();
    await bo.page.locator('#pins-list .side-hit', { hasText: 'welcome to the club' }).waitFor({ timeout: 15_000 });
    await bo.page.locator(`#msg-${helloId}[data-pinned="true"]`).waitFor({ timeout: 15_000 });
    await shot(bo.page, 'phone-pins');
    await bo.page.click('#pins-panel .ui-notice-close');

    // Search Guild Messages from the search box.
    await ada.page.fill('#message-search', 'club');
    await ada.page.press('#message-search', 'Enter');
    await ada.page.waitForSelector('#search-panel');
    await ada.page.locator('#search-results .side-hit', { hasText: 'welcome to the club' }).first().waitFor({ timeout: 30_000 });
    await shot(ada.page, 'desktop-search');
    await ada.page.click('#search-panel .ui-notice-close');
    await ada.page.locator('#message-list').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await shot(ada.page, 'desktop');

    await bo.page.locator('#message-list').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await shot(bo.page, 'phone');
    await expectNothingCutOff(bo.page);
    await expectNothingCutOff(ada.page);

    // A direct message: Bo presses Message on Ada in the member list (his phone); Ada, on the DM
    // page, sees the new conversation arrive and answers; Bo sees the answer live.
    await bo.page.click('.ui-tab[data-tab="members"]');
    await bo.page.click(`#member-list [data-user-id="${adaId}"] .member-message`);
    await bo.page.waitForURL(/\/app\/dms\/\d+$/);
    const dmId = /\/app\/dms\/(\d+)$/.exec(bo.page.url())![1]!;
    await expect.poll(() => bo.page.textContent('#dm-title'), { timeout: 10_000 }).toBe('@Ada Post');
    await ada.page.click('#rail-dms');
    await ada.page.waitForURL(`${t.server.url}/app/dms`);
    await bo.page.fill('#composer-input', 'psst, Ada');
    await bo.page.press('#composer-input', 'Enter');
    // Not open on Ada's page: a dot on the rail's DM link and on the conversation.
    await ada.page.locator('#rail-dms-unread').waitFor({ timeout: 15_000 });
    await ada.page.locator(`#dm-channels [data-channel-id="${dmId}"] .unread-dot`).waitFor({ timeout: 15_000 });
    await shot(ada.page, 'desktop-dm-unread');
    await ada.page.locator(`#dm-channels [data-channel-id="${dmId}"]`, { hasText: 'Bo Reader' }).click({ timeout: 15_000 });
    await message(ada.page, 'psst, Ada').waitFor({ timeout: 15_000 });
    await expect.poll(() => ada.page.locator('#rail-dms-unread').count(), { timeout: 10_000 }).toBe(0);
    await ada.page.fill('#composer-input', 'hi Bo, what is up?');
    await ada.page.press('#composer-input', 'Enter');
    await message(bo.page, 'what is up').waitFor({ timeout: 15_000 });
    // No guild search in a DM.
    expect(await bo.page.locator('#message-search').count()).toBe(0);
    await shot(ada.page, 'desktop-dm');
    await shot(bo.page, 'phone-dm');
    await expectNothingCutOff(bo.page);
    await expectNothingCutOff(ada.page);

    // A group DM: once friends, Ada makes a group with Bo from the DM page; Bo finds it in his
    // list with her message, then leaves it.
    const boAuth = { authorization: bo.token() };
    const boUser = (await t.req('GET', '/users/@me', { headers: boAuth })).body as { id: string; username: string };
    const adaUser = (await t.req('GET', '/users/@me', { headers: adaAuth })).body as { username: string };
    expect((await t.req('POST', '/users/@me/relationships', { headers: adaAuth, body: { username: boUser.username } })).status).toBeLessThan(300);
    expect((await t.req('POST', '/users/@me/relationships', { headers: boAuth, body: { username: adaUser.username } })).status).toBeLessThan(300);
    await ada.page.click('#new-group');
    await ada.page.check(`#new-group-form .dm-friend[data-user-id="${boUser.id}"] input`);
    await ada.page.fill('#new-group-name', 'Weekend plans');
    await ada.page.click('#create-group');
    await ada.page.waitForURL(/\/app\/dms\/\d+$/);
    const groupId = /\/app\/dms\/(\d+)$/.exec(ada.page.url())![1]!;
    await expect.poll(() => ada.page.textContent('#dm-title'), { timeout: 10_000 }).toBe('Weekend plans');
    await ada.page.fill('#composer-input', 'who is in for Saturday?');
    await ada.page.press('#composer-input', 'Enter');
    await bo.page.click('.dm-back');
    await bo.page.locator(`#dm-channels [data-channel-id="${groupId}"]`, { hasText: 'Weekend plans' }).click({ timeout: 15_000 });
    await message(bo.page, 'who is in for Saturday?').waitFor({ timeout: 15_000 });
    await shot(bo.page, 'phone-group');
    await expectNothingCutOff(bo.page);
    await bo.page.click('#leave-group');
    await bo.page.waitForURL(`${t.server.url}/app/dms`);
    await expect.poll(() => bo.page.locator(`#dm-channels [data-channel-id="${groupId}"]`).count(), { timeout: 10_000 }).toBe(0);
    expect(problems).toEqual([]);
  });

  it('pages back through history and jumps to an old pinned message that is not loaded', { timeout: 120_000 }, async () => {
    problems.length = 0;
    const cy = await person('cy_msgs', 'Cy History', DESKTOP);
    await cy.page.waitForSelector('#home');
    await cy.page.fill('#guild-name', 'Archive');
    await cy.page.click('#create-guild-submit');
    await cy.page.waitForURL(/\/app\/guilds\/\d+$/);
    const guildId = /\/app\/guilds\/(\d+)$/.exec(cy.page.url())![1]!;
    const auth = { authorization: cy.token() };
    const text = ((await t.req('GET', `/guilds/${guildId}/channels`, { headers: auth })).body as { id: string; type: number }[]).find((c) => c.type === 0)!;
    // 120 messages seeded through the message service the routes use (REST would spend the
    // caller's rate budget), the first one pinned.
    const cyId = (await t.req('GET', '/users/@me', { headers: auth })).body.id as string;
    const svc = messageServiceFor(t.server.store, undefined as never);
    const caller = { userId: cyId, bot: false, applicationId: t.app.id };
    const ids: string[] = [];
    for (let i = 0; i < 120; i++) ids.push((await svc.create(caller, text.id, { content: `history line ${i}` })).id);
    await svc.setPinned(caller, text.id, ids[0]!, true);
    await cy.page.goto(`${t.server.url}/app/guilds/${guildId}/channels/${text.id}`);
    await message(cy.page, 'history line 119').waitFor();
    expect(await cy.page.locator('#message-list .msg').count()).toBe(50);
    // The newest is in view at the bottom.
    expect(await message(cy.page, 'history line 119').isVisible()).toBe(true);
    await cy.page.click('#load-earlier');
    await expect.poll(() => cy.page.locator('#message-list .msg').count(), { timeout: 15_000 }).toBe(100);
    // The pinned first message is not loaded: the pins panel jumps to it (the messages around it).
    await cy.page.click('#open-pins');
    await cy.page.locator('#pins-list .side-hit-open', { hasText: 'history line 0' }).click();
    await cy.page.locator(`#msg-${ids[0]}.msg-highlight`).waitFor({ timeout: 15_000 });
    expect(await cy.page.locator(`#msg-${ids[0]}`).isVisible()).toBe(true);
    // It is the channel's first message: nothing earlier to load; the newest are a click away.
    await expect.poll(() => cy.page.locator('#load-earlier').count(), { timeout: 15_000 }).toBe(0);
    await shot(cy.page, 'desktop-jump');
    // A message that arrives meanwhile waits for the jump back.
    await svc.create(caller, text.id, { content: 'while you were away' });
    await cy.page.click('#jump-to-present');
    await message(cy.page, 'while you were away').waitFor({ timeout: 15_000 });
    await expect.poll(() => cy.page.locator('#jump-to-present').count(), { timeout: 15_000 }).toBe(0);

    // Scrolled up, a bot's message that mentions Cy: a "new message" button takes Cy down to it,
    // and it stands out as a mention.
    await guildServicesFor(t.server.store, undefined as never).installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages);
    await cy.page.locator('#message-list').evaluate((el) => (el.scrollTop = 0));
    await cy.page.waitForTimeout(200);
    const ping = await t.req('POST', `/channels/${text.id}/messages`, { token: t.app.botToken, bot: true, body: { content: `build finished, <@${cyId}>` } });
    expect(ping.status).toBe(200);
    await cy.page.locator('#new-messages', { hasText: '1 new message' }).click({ timeout: 15_000 });
    await expect.poll(() => message(cy.page, 'build finished').isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await message(cy.page, 'build finished').getAttribute('class')).toContain('msg-mention');
    expect(await message(cy.page, 'build finished').locator('.mention').textContent()).toBe('@Cy History');
    await expect.poll(() => cy.page.locator('#new-messages').count(), { timeout: 15_000 }).toBe(0);

    // Forward a message to another channel from the message's actions.
    const offTopic = await t.req('POST', `/guilds/${guildId}/channels`, { headers: auth, body: { name: 'off-topic', type: 0 } });
    expect(offTopic.status).toBe(201);
    await cy.page.locator('.channel', { hasText: 'off-topic' }).waitFor({ timeout: 15_000 });
    const line = message(cy.page, 'history line 118');
    await line.hover();
    await line.locator('.msg-forward-button').click();
    await cy.page.click(`#forward-targets .forward-target[data-channel-id="${offTopic.body.id}"]`);
    await cy.page.locator('.ui-notice', { hasText: 'Forwarded to #off-topic.' }).waitFor({ timeout: 15_000 });
    await cy.page.goto(`${t.server.url}/app/guilds/${guildId}/channels/${offTopic.body.id}`);
    await cy.page.locator('#message-list .msg-forward', { hasText: 'history line 118' }).waitFor({ timeout: 15_000 });
    await shot(cy.page, 'desktop-forwarded');
    expect(problems).toEqual([]);
  });
});
