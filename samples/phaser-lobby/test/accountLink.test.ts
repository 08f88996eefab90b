/**
 * "Sign in to keep your progress", end to end in headless Chromium against the real server: a
 * guest of the Phaser sample with a friend and a chat message signs up in the authorize popup
 * (the server's own sign-up and consent pages); the provisional account is merged into the new
 * full account, the page comes back signed in, in the same lobby, with the same name, the same
 * friend (on both sides) and the same chat history, and it stays signed in after a reload.
 *
 * Needs Debian's chromium at /usr/bin/chromium (or CHROMIUM_PATH); never downloads a browser.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { RESULTS_DIR, sampleSuite, watchErrors } from '../../../tools/testing/sampleServer.ts';

const t = sampleSuite(['phaser-lobby'], 'Account link test');
const errors = t.errors;
const open = (name: string, url: string) => t.open(name, url);

beforeAll(async () => {
  // The authorize popup comes back to the game's page (the browser default redirect URI).
  await t.server.configureApplication(t.applicationId, { redirectUris: [t.url()], publicClient: true });
});

const me = (page: Page) =>
  page.evaluate(() => {
    const user = window.__socialLayerSample.client?.getCurrentUserV2();
    return user ? { id: user.id, username: user.username, displayName: user.displayName, provisional: user.isProvisional } : null;
  });

const friendRow = (page: Page, userId: string) => page.locator(`.sl-friends .sl-friend:not(.sl-friend-request)[data-user-id="${userId}"]`);

describe('account linking in the Phaser sample', () => {
  it('a guest with a friend and chat history signs up in the popup and keeps both', async () => {
    const guest = await open('Guest', t.url());
    const before = await t.ready(guest.page);
    const friend = await open('Friend', guest.page.url());
    const friendInfo = await t.ready(friend.page);
    const guestUser = (await me(guest.page))!;
    expect(guestUser.provisional).toBe(true);

    // A friend, made in the panels, and a line of chat.
    await friend.page.locator('.sl-friends-input').fill(guestUser.username);
    await friend.page.locator('.sl-friends-input').press('Enter');
    await guest.page.locator(`.sl-friend-request[data-user-id="${friendInfo.userId}"] .sl-friend-accept`).click({ timeout: 20_000 });
    await friendRow(guest.page, friendInfo.userId).waitFor({ timeout: 20_000 });
    const text = `said before signing up ${Date.now()}`;
    await guest.page.locator('.sl-chat-input').fill(text);
    await guest.page.locator('.sl-chat-input').press('Enter');
    await friend.page.locator('.sl-chat-message', { hasText: text }).waitFor({ timeout: 20_000 });

    // Sign up in the popup: sign-in page, "Create an account", the form, then consent.
    const popupOpened = guest.page.waitForEvent('popup');
    await guest.page.locator('.sl-bar-signin').click();
    const popup = await popupOpened;
    watchErrors(popup, 'Popup', errors);
    await popup.locator('a', { hasText: 'Create an account' }).click({ timeout: 20_000 });
    const login = `keeper_${Date.now().toString(36)}`;
    await popup.locator('#login').fill(login);
    await popup.locator('#display_name').fill(guestUser.displayName);
    await popup.locator('#password').fill('correct horse battery staple');
    await popup.locator('#sign-up').click();
    // Listen for the close before clicking: the popup may close before click() returns (seen under load).
    const popupClosed = popup.isClosed() ? Promise.resolve() : popup.waitForEvent('close', { timeout: 40_000 });
    await popup.locator('#authorize').click({ timeout: 20_000, noWaitAfter: true });
    await popupClosed;

    // The page reloads signed in as the full account, in the same lobby.
    await expect.poll(() => me(guest.page).catch(() => null).then((u) => u?.provisional), { timeout: 30_000 }).toBe(false);
    const after = await t.ready(guest.page);
    const linked = (await me(guest.page))!;
    expect(linked.username).toBe(login);
    expect(linked.displayName).toBe(guestUser.displayName);
    expect(after.lobbyId).toBe(before.lobbyId);
    expect(new URL(guest.page.url()).searchParams.get('lobby')).toBe(before.secret);
    expect(await guest.page.locator('.sl-bar-signin').count()).toBe(0);

    // Same friend, same history: the message is now the full account's.
    await friendRow(guest.page, friendInfo.userId).waitFor({ timeout: 20_000 });
    const message = guest.page.locator('.sl-chat-message', { hasText: text });
    await message.waitFor({ timeout: 20_000 });
    expect(await message.getAttribute('data-author-id')).toBe(linked.id);
    expect(await message.locator('.sl-chat-author').textContent()).toBe(guestUser.displayName);
    await guest.page.screenshot({ path: join(RESULTS_DIR, 'phaser-lobby-account-linked.png') });

    // The friend sees the same person: a friend by the same name, in the lobby.
    await friend.page.reload();
    await t.ready(friend.page);
    await friendRow(friend.page, linked.id).waitFor({ timeout: 20_000 });
    expect(await friendRow(friend.page, linked.id).locator('.sl-friend-name').textContent()).toBe(guestUser.displayName);
    expect(await friendRow(friend.page, guestUser.id).count()).toBe(0);
    await expect.poll(() => friend.page.locator(`.sl-member[data-user-id="${linked.id}"]`).getAttribute('data-connected'), { timeout: 20_000 }).toBe('true');

    // And it sticks: a reload signs in with the kept refresh token, not as a guest.
    await guest.page.reload();
    await t.ready(guest.page);
    expect((await me(guest.page))!).toMatchObject({ id: linked.id, provisional: false });
    // The platform's own sign-in pages have no favicon (the browser asks for /favicon.ico): not
    // the game's error, and the only one allowed.
    expect(errors.filter((e) => !/^Popup console: .*404.*\/favicon\.ico\)$/.test(e))).toEqual([]);
  }, 240_000);
});
