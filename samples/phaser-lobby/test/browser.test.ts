/**
 * End to end: the real server in-process serves the built sample; two headless Chromium
 * players (separate browser contexts, so separate device IDs) meet in one lobby, chat, move,
 * and one of them reloads and gets the same account, lobby and chat history back.
 *
 * Needs Debian's chromium at /usr/bin/chromium (or CHROMIUM_PATH); never downloads a browser.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { avatarPosition, clickWorld, memberRow, RESULTS_DIR, sampleSuite } from '../../../tools/testing/sampleServer.ts';

const t = sampleSuite(['phaser-lobby'], 'Phaser lobby test');

describe('phaser-lobby sample in Chromium', () => {
  it('serves a config that names an application', async () => {
    const response = await fetch(`${t.server.url}/games/config.json`);
    expect(response.status).toBe(200);
    const config = (await response.json()) as { applicationId?: unknown; apiBase?: unknown };
    expect(config.applicationId).toBe(t.applicationId);
    expect(config.apiBase).toBe(t.server.url);
  });

  it('two players meet, chat, move; a reload brings the same account and history back; rename and leave show', async () => {
    const base = `${t.server.url}/games/phaser-lobby/`;

    // Player A opens the bare URL: the sample makes a lobby secret and puts it in the URL.
    const a = await t.open('A', base);
    const infoA = await t.ready(a.page);
    expect(infoA.userId).toMatch(/^\d+$/);
    expect(new URL(a.page.url()).searchParams.get('lobby')).toBe(infoA.secret);
    const inviteUrl = a.page.url();

    // Player B follows the invite link.
    const b = await t.open('B', inviteUrl);
    const infoB = await t.ready(b.page);
    expect(infoB.userId).not.toBe(infoA.userId);
    expect(infoB.lobbyId).toBe(infoA.lobbyId);
    expect(infoA.displayName).not.toBe('');

    // Each sees the other, connected, by display name, in the plugin's member list.
    for (const [page, other] of [
      [a.page, infoB],
      [b.page, infoA],
    ] as const) {
      const row = memberRow(page, other.userId);
      await expect.poll(() => row.getAttribute('data-connected'), { timeout: 20_000 }).toBe('true');
      await expect.poll(() => row.locator('.sl-member-name').textContent(), { timeout: 20_000 }).toBe(other.displayName);
    }
    await expect.poll(() => avatarPosition(a.page, infoB.userId), { timeout: 20_000 }).not.toBeNull();

    // A chats; B's panel shows it.
    const text = `hello from A ${Date.now()}`;
    await a.page.locator('.sl-chat-input').fill(text);
    await a.page.locator('.sl-chat-input').press('Enter');
    const received = b.page.locator('.sl-chat-message', { hasText: text });
    await received.waitFor({ timeout: 20_000 });
    expect(await received.getAttribute('data-author-id')).toBe(infoA.userId);
    expect(await received.locator('.sl-chat-author').textContent()).toBe(infoA.displayName);
    await a.page.locator('.sl-chat-message', { hasText: text }).waitFor({ timeout: 20_000 });
    expect(await a.page.locator('.sl-chat-message', { hasText: text }).count()).toBe(1);

    // A clicks the field: its avatar walks there, and B sees it arrive.
    // A click lands on a whole CSS pixel, which is up to one world unit away from the point asked
    // for when the canvas is scaled (the header's height sets the scale): A walks to where the
    // click landed, and B must see exactly that spot.
    await clickWorld(a.page, 700, 380);
    const sharedSpot = () => a.page.evaluate(() => {
      const state = window.__socialLayerSample.session!.state;
      return { x: Number(state.x), y: Number(state.y) };
    });
    await expect.poll(async () => { const p = await sharedSpot(); return Math.max(Math.abs(p.x - 700), Math.abs(p.y - 380)); }, { timeout: 20_000 }).toBeLessThanOrEqual(1);
    const target = await sharedSpot();
    await expect.poll(() => avatarPosition(a.page, infoA.userId), { timeout: 20_000 }).toEqual(target);
    await expect.poll(() => avatarPosition(b.page, infoA.userId), { timeout: 20_000 }).toEqual(target);

    await a.page.screenshot({ path: join(RESULTS_DIR, 'phaser-lobby-player-a.png') });
    await b.page.screenshot({ path: join(RESULTS_DIR, 'phaser-lobby-player-b.png') });

    // B reloads: same guest account (device ID in localStorage), same lobby (secret in the URL),
    // the chat history is back and A's avatar stands where it moved to. B never clicked, and is
    // still put back where it stood (its spawn point is kept on the device, not redrawn).
    const bSpot = await avatarPosition(b.page, infoB.userId);
    expect(bSpot).not.toBeNull();
    await b.page.reload();
    const infoB2 = await t.ready(b.page);
    expect(infoB2.userId).toBe(infoB.userId);
    expect(infoB2.lobbyId).toBe(infoB.lobbyId);
    expect(infoB2.displayName).toBe(infoB.displayName);
    await b.page.locator('.sl-chat-message', { hasText: text }).waitFor({ timeout: 20_000 });
    await expect.poll(() => avatarPosition(b.page, infoA.userId), { timeout: 20_000 }).toEqual(target);
    expect(await avatarPosition(b.page, infoB.userId)).toEqual(bSpot);
    await expect.poll(() => avatarPosition(a.page, infoB.userId), { timeout: 20_000 }).toEqual(bSpot);
    await expect.poll(() => memberRow(a.page, infoB.userId).getAttribute('data-connected'), { timeout: 20_000 }).toBe(
      'true',
    );
    await b.page.screenshot({ path: join(RESULTS_DIR, 'phaser-lobby-player-b-reloaded.png') });

    // A picks a new name in the page header; B's member list and chat author labels follow.
    await a.page.locator('.sl-bar-name-input').fill('Captain A');
    await a.page.locator('.sl-bar-name-input').press('Enter');
    await expect
      .poll(() => memberRow(b.page, infoA.userId).locator('.sl-member-name').textContent(), { timeout: 20_000 })
      .toBe('Captain A');
    await expect
      .poll(() => b.page.locator('.sl-chat-message', { hasText: text }).locator('.sl-chat-author').textContent(), { timeout: 20_000 })
      .toBe('Captain A');

    // B closes the tab: A's list shows B offline (after the server's short presence grace).
    await b.context.close();
    await expect
      .poll(() => memberRow(a.page, infoB.userId).getAttribute('data-connected'), { timeout: 20_000 })
      .toBe('false');
    await a.page.screenshot({ path: join(RESULTS_DIR, 'phaser-lobby-player-a-after-b-left.png') });

    expect(t.errors).toEqual([]);
  }, 240_000);

  it('friends panel with presence, an invite accepted from the toast, and an invite opened by its deep link', async () => {
    const base = `${t.server.url}/games/phaser-lobby/`;
    const host = await t.open('Host', base);
    const hostInfo = await t.ready(host.page);
    const friend = await t.open('Friend', base);
    const friendInfo = await t.ready(friend.page);
    const linked = await t.open('Linked', base);
    const linkedInfo = await t.ready(linked.page);
    expect(new Set([hostInfo.lobbyId, friendInfo.lobbyId, linkedInfo.lobbyId]).size).toBe(3);
    const username = (page: Page) => page.evaluate(() => window.__socialLayerSample.client!.getCurrentUserV2()!.username);
    const friendRow = (page: Page, userId: string) => page.locator(`.sl-friends .sl-friend[data-user-id="${userId}"]`);

    // The friend adds the host by username in the panel; the host accepts in the panel.
    expect(await host.page.locator('.sl-bar-you').textContent()).toBe(`@${await username(host.page)}`);
    await friend.page.locator('.sl-friends-input').fill(await username(host.page));
    await friend.page.locator('.sl-friends-input').press('Enter');
    const request = host.page.locator(`.sl-friend-request[data-user-id="${friendInfo.userId}"][data-direction="incoming"]`);
    await request.waitFor({ timeout: 20_000 });
    await request.locator('.sl-friend-accept').click();

    // Each sees the other playing this game, with the other's rich presence.
    for (const [page, other] of [
      [host.page, friendInfo],
      [friend.page, hostInfo],
    ] as const) {
      const row = friendRow(page, other.userId);
      await expect.poll(() => row.getAttribute('data-group'), { timeout: 20_000 }).toBe('0');
      expect(await row.getAttribute('data-status')).toBe('online');
      await expect.poll(() => row.locator('.sl-friend-activity').textContent(), { timeout: 20_000 }).toContain('In the lobby');
      expect(await row.locator('.sl-friend-name').textContent()).toBe(other.displayName);
    }
    await host.page.screenshot({ path: join(RESULTS_DIR, 'phaser-lobby-friends-panel.png') });

    // The host invites the friend; the toast shows; Accept takes the friend into the host's lobby.
    await friendRow(host.page, friendInfo.userId).locator('.sl-friend-invite').click();
    const toast = friend.page.locator(`.sl-toast[data-sender-id="${hostInfo.userId}"]`);
    await toast.waitFor({ timeout: 20_000 });
    expect(await toast.locator('.sl-toast-title').textContent()).toBe(`${hostInfo.displayName} invites you to play`);
    await friend.page.screenshot({ path: join(RESULTS_DIR, 'phaser-lobby-invite-toast.png') });
    await toast.locator('.sl-toast-accept').click();
    await friend.page.waitForURL((url) => url.searchParams.get('lobby') === hostInfo.secret, { timeout: 20_000 });
    const joined = await t.ready(friend.page);
    expect(joined.lobbyId).toBe(hostInfo.lobbyId);
    expect(joined.userId).toBe(friendInfo.userId);
    await expect.poll(() => memberRow(host.page, friendInfo.userId).getAttribute('data-connected'), { timeout: 20_000 }).toBe('true');
    // The host's party grew: friends see 2 of 8.
    await expect.poll(() => friendRow(friend.page, hostInfo.userId).locator('.sl-friend-activity').textContent(), { timeout: 20_000 }).toContain('2/8');

    // Deep link: the third player gets an invite and opens its link in a new tab instead.
    await linked.page.evaluate((hostId) => window.__socialLayerSample.client!.sendDiscordFriendRequestById(hostId), hostInfo.userId);
    await host.page.locator(`.sl-friend-request[data-user-id="${linkedInfo.userId}"] .sl-friend-accept`).click({ timeout: 20_000 });
    await friendRow(host.page, linkedInfo.userId).locator('.sl-friend-invite').click({ timeout: 20_000 });
    const linkedToast = linked.page.locator(`.sl-toast[data-sender-id="${hostInfo.userId}"]`);
    await linkedToast.waitFor({ timeout: 20_000 });
    const link = await linkedToast.getAttribute('data-invite-url');
    expect(link).toMatch(new RegExp(`^${base.replace(/[.?]/g, '\\$&')}\\?invite=\\d+$`));
    const tab = await linked.context.newPage();
    tab.on('pageerror', (error) => t.errors.push(`Linked tab: ${error.message}`));
    await tab.goto(link!);
    const viaLink = await t.ready(tab);
    expect(viaLink.userId).toBe(linkedInfo.userId);
    expect(viaLink.lobbyId).toBe(hostInfo.lobbyId);
    expect(new URL(tab.url()).searchParams.get('lobby')).toBe(hostInfo.secret);
    await expect.poll(() => memberRow(host.page, linkedInfo.userId).getAttribute('data-connected'), { timeout: 20_000 }).toBe('true');
    await tab.screenshot({ path: join(RESULTS_DIR, 'phaser-lobby-deep-link.png') });
    await host.page.screenshot({ path: join(RESULTS_DIR, 'phaser-lobby-host-after-invites.png') });

    expect(t.errors).toEqual([]);
  }, 240_000);
});
