/**
 * Linked channels in the browser (issue 12): the Phaser sample and the web app side by side in
 * two Chromium pages. A guest of the sample signs in (the authorize popup, as accountLink does),
 * links the lobby to a channel of the guild they own with the sample's "Link channel" panel, and
 * then a message typed in the game's chat shows in the web app's channel and one typed in the web
 * app shows in the game, marked as coming from the server. Screenshots:
 * test-results/linked-channel-phaser.png and linked-channel-webapp.png.
 *
 * Needs Debian's chromium at /usr/bin/chromium (or CHROMIUM_PATH); never downloads a browser.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { RESULTS_DIR, sampleSuite, watchErrors } from '../../../tools/testing/sampleServer.ts';
import { build as buildWebApp } from '../../../server/web/build.mjs';
import { guildServicesFor } from '../../../server/src/guilds/GuildServices.ts';

const t = sampleSuite(['phaser-lobby'], 'Linked channel test');
const errors = t.errors;

beforeAll(async () => {
  await buildWebApp();
  await t.server.configureApplication(t.applicationId, { redirectUris: [t.url()], publicClient: true });
}, 120_000);

const me = (page: Page) =>
  page.evaluate(() => {
    const user = window.__socialLayerSample.client?.getCurrentUserV2();
    return user ? { id: user.id, provisional: user.isProvisional } : null;
  });

/** The web app's message row whose own text contains `text`. */
const webMessage = (page: Page, text: string) => page.locator('#message-list .msg').filter({ has: page.locator('.msg-content', { hasText: text }) });

describe('linked channel: the Phaser sample and the web app', () => {
  it('a signed-in player links the lobby; messages typed on each side show on the other', async () => {
    // The player: a guest of the sample who signs up in the popup.
    const game = await t.open('Game', t.url());
    await t.ready(game.page);
    // Guests have no servers: no Link channel button.
    expect(await game.page.locator('.link-channel-open').isVisible()).toBe(false);
    const popupOpened = game.page.waitForEvent('popup');
    await game.page.locator('.sl-bar-signin').click();
    const popup = await popupOpened;
    watchErrors(popup, 'Popup', errors);
    await popup.locator('a', { hasText: 'Create an account' }).click({ timeout: 20_000 });
    await popup.locator('#login').fill(`linker_${Date.now().toString(36)}`);
    await popup.locator('#display_name').fill('Lin Ker');
    await popup.locator('#password').fill('correct horse battery staple');
    await popup.locator('#sign-up').click();
    // Listen for the close before clicking: the popup may close before click() returns (seen under load).
    const popupClosed = popup.isClosed() ? Promise.resolve() : popup.waitForEvent('close', { timeout: 40_000 });
    await popup.locator('#authorize').click({ timeout: 20_000, noWaitAfter: true });
    await popupClosed;
    await expect.poll(() => me(game.page).catch(() => null).then((u) => u?.provisional), { timeout: 30_000 }).toBe(false);
    const info = await t.ready(game.page);
    const playerId = (await me(game.page))!.id;

    // The web-app user signs up in the web app.
    const web = await t.open('Web', `${t.server.url}/app`);
    await web.page.click('a[href^="/signup"]');
    await web.page.fill('#login', `webber_${Date.now().toString(36)}`);
    await web.page.fill('#display_name', 'Web Ber');
    await web.page.fill('#password', 'correct horse battery staple');
    await web.page.click('#sign-up');
    await web.page.waitForURL(`${t.server.url}/app`);
    await web.page.waitForSelector('#home');

    // The player owns a guild the web user is in; the game's backend lets the player link its lobby.
    const guilds = guildServicesFor(t.server.store, undefined as never);
    const guild = await guilds.guilds.createGuild(playerId, { name: 'Linkers' });
    const webUserId = await web.page.evaluate(async () => {
      const r = await fetch('/app/session', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')!.content }, body: '{}' });
      return ((await r.json()) as { user: { id: string } }).user.id;
    });
    await guilds.members.join(guild.id, webUserId);
    await t.server.store.lobbies.upsertMember(t.server.store.database.db, info.lobbyId, playerId, { flags: 1 });
    const channel = (await t.server.store.guilds.channels(guild.id)).find((c) => c.type === 0)!;

    // Link from the game.
    await game.page.locator('.link-channel-open').click();
    await game.page.locator(`.link-channel-guild option[value="${guild.id}"]`).waitFor({ state: 'attached', timeout: 20_000 });
    await game.page.locator(`.link-channel-channel option[value="${channel.id}"]`).waitFor({ state: 'attached', timeout: 20_000 });
    await game.page.locator('.link-channel-channel').selectOption(channel.id);
    await game.page.locator('.link-channel-link').click();
    await expect.poll(() => game.page.locator('.sl-chat-linked').textContent(), { timeout: 20_000 }).toBe(`Linked to #${channel.name}`);
    expect(await game.page.locator('.link-channel-open').textContent()).toBe(`#${channel.name}`);

    // The web app opens the linked channel.
    await web.page.goto(`${t.server.url}/app/guilds/${guild.id}/channels/${channel.id}`);
    await web.page.waitForSelector('#composer-input', { timeout: 20_000 });

    // Game -> web app.
    const fromGame = `hello from the game ${Date.now()}`;
    await game.page.locator('.sl-chat-input').fill(fromGame);
    await game.page.locator('.sl-chat-input').press('Enter');
    await webMessage(web.page, fromGame).waitFor({ timeout: 20_000 });
    expect(await webMessage(web.page, fromGame).getAttribute('data-author-id')).toBe(playerId);
    // The game is shown as the source of the player's message.
    expect(await webMessage(web.page, fromGame).locator('.msg-via').textContent()).toBe('GAME');
    // The SDK's notice that lobby messages are visible outside the game came first, once.
    await game.page.locator('.sl-chat-message.sl-chat-notice').waitFor({ timeout: 20_000 });
    expect(await game.page.locator('.sl-chat-message.sl-chat-notice').count()).toBe(1);

    // Web app -> game, marked as from the server.
    const fromWeb = `hello from the web app ${Date.now()}`;
    await web.page.fill('#composer-input', fromWeb);
    await web.page.press('#composer-input', 'Enter');
    const inGame = game.page.locator('.sl-chat-message.sl-from-guild', { hasText: fromWeb });
    await inGame.waitFor({ timeout: 20_000 });
    expect(await inGame.locator('.sl-chat-source').textContent()).toBe('server');
    expect(await inGame.getAttribute('data-author-id')).toBe(webUserId);

    // Each once on each side.
    expect(await game.page.locator('.sl-chat-message', { hasText: fromGame }).count()).toBe(1);
    expect(await webMessage(web.page, fromWeb).count()).toBe(1);

    await game.page.screenshot({ path: join(RESULTS_DIR, 'linked-channel-phaser.png') });
    await web.page.screenshot({ path: join(RESULTS_DIR, 'linked-channel-webapp.png') });
    // The platform's own sign-in pages have no favicon: the only error allowed.
    expect(errors.filter((e) => !/^Popup console: .*404.*\/favicon\.ico\)$/.test(e) && !/favicon\.ico/.test(e))).toEqual([]);
  }, 240_000);
});
