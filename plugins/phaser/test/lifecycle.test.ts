/**
 * The plugin in a real Phaser game in headless Chromium, against a fake client (no server):
 * panels render from client events, sending goes through the client, update pumps callbacks
 * when asked, and shutdown and destroy leave no listener and no DOM behind.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from '../../../tools/testing/chromium.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = resolve(here, '../../../test-results');

let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  const bundle = await esbuild.build({
    entryPoints: [join(here, 'harness.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'warning',
  });
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.setContent('<!doctype html><html><head></head><body></body></html>');
  await page.addScriptTag({ type: 'module', content: bundle.outputFiles[0]!.text });
  await page.waitForFunction(() => 'harness' in window);
  await page.evaluate(() => (window as any).harness.booted);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

const listenerCount = () => page.evaluate(() => (window as any).harness.client.listenerCount() as number);

describe('SocialLayerPlugin in a Phaser game', () => {
  it('shows the member list from the lobby handle and follows member events', async () => {
    await page.locator('.sl-members .sl-member').first().waitFor();
    expect(await page.locator('.sl-member-name').allTextContents()).toEqual(['Ada', 'Grace']);
    expect(await page.locator('.sl-member[data-user-id="1"]').getAttribute('data-connected')).toBe('true');
    expect(await page.locator('.sl-member[data-user-id="2"]').getAttribute('data-connected')).toBe('false');
    expect(await page.locator('.sl-member[data-user-id="1"] .sl-member-you').count()).toBe(1);

    await page.evaluate(() => {
      const { client } = (window as any).harness;
      client.members.get('2').connected = true;
      client.emit('lobbyMemberUpdated', '42', '2');
      client.members.set('3', { id: '3', name: 'Linus', connected: true });
      client.emit('lobbyMemberAdded', '99', '3'); // another lobby's event: no redraw
    });
    expect(await page.locator('.sl-member[data-user-id="2"]').getAttribute('data-connected')).toBe('true');
    expect(await page.locator('.sl-member[data-user-id="3"]').count()).toBe(0);
    await page.evaluate(() => (window as any).harness.client.emit('lobbyMemberAdded', '42', '3'));
    expect(await page.locator('.sl-member-count').textContent()).toBe('3/3');
  });

  it('shows messages of its lobby in snowflake order and sends through the client', async () => {
    await page.evaluate(() => {
      const { client } = (window as any).harness;
      client.messages.set('500', { id: '500', lobbyId: '42', authorId: '2', content: 'second' });
      client.messages.set('7', { id: '7', lobbyId: '99', authorId: '2', content: 'other lobby' });
      client.emit('messageCreated', '500');
      client.emit('messageCreated', '7');
      client.messages.set('90', { id: '90', lobbyId: '42', authorId: '3', content: 'first' });
      const scene = (window as any).harness.scene();
      scene.socialLayer.chat.showMessages([client.getMessageHandle('90'), client.getMessageHandle('500')]);
    });
    expect(await page.locator('.sl-chat-text').allTextContents()).toEqual(['first', 'second']);
    expect(await page.locator('.sl-chat-author').allTextContents()).toEqual(['Linus', 'Grace']);
    await page.evaluate(() => {
      const { client } = (window as any).harness;
      client.members.get('2').name = 'Grace H.';
      client.emit('userUpdated', '2');
    });
    expect(await page.locator('.sl-chat-author').allTextContents()).toEqual(['Linus', 'Grace H.']);
    expect(await page.locator('.sl-member[data-user-id="2"] .sl-member-name').textContent()).toBe('Grace H.');

    await page.locator('.sl-chat-input').fill('  hi there ');
    await page.locator('.sl-chat-input').press('Enter');
    await page.locator('.sl-chat-message.sl-own').waitFor();
    expect(await page.evaluate(() => (window as any).harness.client.sent)).toEqual([{ lobbyId: '42', content: 'hi there' }]);
    expect(await page.locator('.sl-chat-text').allTextContents()).toEqual(['first', 'second', 'hi there']);
    expect(await page.locator('.sl-chat-input').inputValue()).toBe('');
    await mkdir(resultsDir, { recursive: true });
    await page.screenshot({ path: join(resultsDir, 'phaser-plugin-panels.png') });
  });

  it('shows friends by group with presence, invites through the client, and accepts invites from a toast', async () => {
    await page.evaluate(() => {
      const { client } = (window as any).harness;
      client.friends.set('10', { name: 'Mia', status: 0, group: 0, relationship: 1, state: 'In a match' });
      client.friends.set('11', { name: 'Noor', status: 1, group: 2, relationship: 1 });
      client.friends.set('12', { name: 'Ola', status: 0, group: 1, relationship: 3 });
      client.emit('relationshipGroupsUpdated', '10');
    });
    const row = (id: string) => page.locator(`.sl-friends .sl-friend[data-user-id="${id}"]`);
    expect(await row('10').getAttribute('data-group')).toBe('0');
    expect(await row('10').getAttribute('data-status')).toBe('online');
    expect(await row('10').locator('.sl-friend-activity').textContent()).toBe('In a match · 2/4');
    expect(await row('11').getAttribute('data-status')).toBe('offline');
    expect(await page.locator('.sl-friends-group-title').allTextContents()).toEqual(['Requests — 1', 'Playing — 1', 'Offline — 1']);
    expect(await page.locator('.sl-friends-count').textContent()).toBe('1/2');

    await row('10').locator('.sl-friend-invite').click();
    await expect.poll(() => page.evaluate(() => (window as any).harness.client.invitesSent)).toEqual(['10']);
    await page.locator('.sl-friend-request[data-user-id="12"] .sl-friend-accept').click();
    await expect.poll(() => row('12').getAttribute('data-group')).toBe('1');

    await page.evaluate(() => {
      const { client } = (window as any).harness;
      client.emitAny('activityInviteCreated', {
        messageId: () => '900', senderId: () => '10', type: () => 1, isValid: () => true, content: () => 'gg',
        url: () => 'https://example.com/game/?invite=900', coverImage: () => undefined,
      });
    });
    const toast = page.locator('.sl-toast[data-invite-id="900"]');
    expect(await toast.locator('.sl-toast-title').textContent()).toBe('Mia invites you to play');
    expect(await toast.getAttribute('data-invite-url')).toBe('https://example.com/game/?invite=900');
    await page.screenshot({ path: join(resultsDir, 'phaser-plugin-friends.png') });
    await toast.locator('.sl-toast-accept').click();
    await expect.poll(() => page.evaluate(() => (window as any).harness.joined)).toEqual(['secret-of-900']);
    expect(await page.locator('.sl-toast').count()).toBe(0);
  });

  it('frees every client listener and its DOM on shutdown, and attaches again on restart', async () => {
    expect(await listenerCount()).toBeGreaterThan(0);
    await page.evaluate(() => (window as any).harness.scene().scene.stop());
    expect(await listenerCount()).toBe(0);
    expect(await page.locator('.sl-overlay').count()).toBe(0);
    expect(await page.locator('style[data-social-layer]').count()).toBe(0);

    const before = await page.evaluate(() => (window as any).harness.client.runCallbacksCalls as number);
    await page.evaluate(() => (window as any).harness.scene().scene.start('test', { pump: true }));
    await page.locator('.sl-members .sl-member').first().waitFor();
    expect(await listenerCount()).toBeGreaterThan(0);
    await expect
      .poll(() => page.evaluate(() => (window as any).harness.client.runCallbacksCalls as number))
      .toBeGreaterThan(before + 2);

    // A game that draws on demand puts its loop to sleep: no scene update runs, and the queued
    // callbacks are still pumped (by the plugin's timer) until the loop wakes.
    await page.evaluate(() => (window as any).harness.game.loop.sleep());
    expect(await page.evaluate(() => (window as any).harness.game.loop.running)).toBe(false);
    const asleep = await page.evaluate(() => (window as any).harness.client.runCallbacksCalls as number);
    await expect
      .poll(() => page.evaluate(() => (window as any).harness.client.runCallbacksCalls as number))
      .toBeGreaterThan(asleep + 3);
    await page.evaluate(() => (window as any).harness.game.loop.wake());
  });

  it('frees everything when the game is destroyed', async () => {
    await page.evaluate(() => (window as any).harness.game.destroy(true));
    await expect.poll(listenerCount).toBe(0);
    expect(await page.locator('.sl-overlay').count()).toBe(0);
    expect(await page.locator('style[data-social-layer]').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
