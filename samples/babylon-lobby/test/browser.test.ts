/**
 * End to end: the real server in-process serves the built sample; two headless Chromium
 * players (separate browser contexts, so separate device IDs) meet in one lobby, see each other
 * in the member list and as avatars on the 3D ground, chat, and one walks by clicking the
 * ground while the other sees the avatar arrive. Then two more join the lobby's call: one holds
 * V (the adapter's PushToTalk) with Chromium's fake microphone, the other hears it and shows the
 * speaking ring. WebGL runs on SwiftShader (software).
 *
 * Needs Debian's chromium at /usr/bin/chromium (or CHROMIUM_PATH); never downloads a browser.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { FAKE_MEDIA_ARGS, WEBGL_ARGS } from '../../../tools/testing/chromium.ts';
import { avatarPosition, clickWorld, memberRow, RESULTS_DIR, sampleSuite } from '../../../tools/testing/sampleServer.ts';
import type { SampleHook } from '../src/main.ts';

/** The page's window as this sample sees it (each sample has its own hook shape). */
type SampleWindow = { __socialLayerSample: SampleHook | undefined };

const t = sampleSuite(['babylon-lobby'], 'Babylon lobby test', [...WEBGL_ARGS, ...FAKE_MEDIA_ARGS]);

describe('babylon-lobby sample in Chromium', () => {
  it('two players meet, see each other, chat, and a click on the ground moves an avatar for both', async () => {
    const base = `${t.server.url}/games/babylon-lobby/`;

    // Player A opens the bare URL: the sample makes a lobby secret and puts it in the URL.
    const a = await t.open('A', base);
    const infoA = await t.ready(a.page);
    expect(infoA.userId).toMatch(/^\d+$/);
    expect(new URL(a.page.url()).searchParams.get('lobby')).toBe(infoA.secret);

    // Player B follows the invite link (the address bar).
    const b = await t.open('B', a.page.url());
    const infoB = await t.ready(b.page);
    expect(infoB.userId).not.toBe(infoA.userId);
    expect(infoB.lobbyId).toBe(infoA.lobbyId);

    // Each sees the other: connected in the member list, by display name, and as an avatar.
    for (const [page, other] of [
      [a.page, infoB],
      [b.page, infoA],
    ] as const) {
      const row = memberRow(page, other.userId);
      await expect.poll(() => row.getAttribute('data-connected'), { timeout: 20_000 }).toBe('true');
      await expect.poll(() => row.locator('.sl-member-name').textContent(), { timeout: 20_000 }).toBe(other.displayName);
      await expect.poll(() => avatarPosition(page, other.userId), { timeout: 20_000 }).not.toBeNull();
    }

    // A chats; B's panel shows it, by A's name.
    const text = `hello from A ${Date.now()}`;
    await a.page.locator('.sl-chat-input').fill(text);
    await a.page.locator('.sl-chat-input').press('Enter');
    const received = b.page.locator('.sl-chat-message', { hasText: text });
    await received.waitFor({ timeout: 20_000 });
    expect(await received.getAttribute('data-author-id')).toBe(infoA.userId);
    expect(await received.locator('.sl-chat-author').textContent()).toBe(infoA.displayName);

    // A clicks the ground: the scene picks the spot, A's avatar walks there, and B sees it
    // arrive at the same place. Picking maps a pixel back to the ground, so allow a unit or two.
    const target = { x: 700, y: 380 };
    await clickWorld(a.page, target.x, target.y);
    await expect
      .poll(async () => {
        const at = await avatarPosition(a.page, infoA.userId);
        return at ? Math.hypot(at.x - target.x, at.y - target.y) : Infinity;
      }, { timeout: 20_000 })
      .toBeLessThan(3);
    const settled = await avatarPosition(a.page, infoA.userId);
    await expect.poll(() => avatarPosition(b.page, infoA.userId), { timeout: 20_000 }).toEqual(settled);

    await a.page.screenshot({ path: join(RESULTS_DIR, 'babylon-lobby-player-a.png') });
    await b.page.screenshot({ path: join(RESULTS_DIR, 'babylon-lobby-player-b.png') });
    expect(t.errors).toEqual([]);
    // Software WebGL in four pages at once would starve the voice test of CPU.
    await a.context.close();
    await b.context.close();
  }, 120_000);

  it('push-to-talk on V is heard on the other page, with the speaking ring', async () => {
    const a = await t.open('Talker', `${t.server.url}/games/babylon-lobby/`);
    const infoA = await t.ready(a.page);
    const b = await t.open('Listener', a.page.url());
    await t.ready(b.page);
    const callState = (page: Page) =>
      page.evaluate(() => {
        const call = (window as unknown as SampleWindow).__socialLayerSample!.voice?.call;
        return call ? { status: call.getStatus(), e2ee: call.isE2eeReady(), level: call.getPlaybackLevel() } : null;
      });
    const ringShown = (page: Page, userId: string) =>
      page.evaluate((id) => (window as unknown as SampleWindow).__socialLayerSample!.isSpeakingShown(id), userId);

    await a.page.locator('.sl-bar-voice').click();
    await b.page.locator('.sl-bar-voice').click();
    for (const page of [a.page, b.page]) {
      await expect.poll(() => callState(page), { timeout: 30_000 }).toMatchObject({ status: 4, e2ee: true }); // Connected
    }
    await expect.poll(() => a.page.locator('.sl-bar-voice-hint').textContent(), { timeout: 10_000 }).toBe('Hold V to talk');
    expect(await ringShown(b.page, infoA.userId)).toBe(false);

    // Held: the beeps reach B's speakers and A's avatar shows the ring on B. The key goes to the
    // page, not to a focused canvas: the adapter listens on the window.
    await a.page.keyboard.down('v');
    let loudest = 0;
    await expect
      .poll(async () => (loudest = Math.max(loudest, (await callState(b.page))!.level)), { timeout: 30_000, interval: 50 })
      .toBeGreaterThan(0.01);
    await expect.poll(() => ringShown(b.page, infoA.userId), { timeout: 10_000 }).toBe(true);
    await b.page.screenshot({ path: join(RESULTS_DIR, 'babylon-lobby-voice-listener.png') });

    // Released: the ring goes off once the frames already captured have played out (seconds,
    // on two busy cores rendering WebGL in software).
    await a.page.keyboard.up('v');
    expect(await a.page.evaluate(() => (window as unknown as SampleWindow).__socialLayerSample!.voice?.call?.getPTTActive())).toBe(false);
    await expect.poll(() => ringShown(b.page, infoA.userId), { timeout: 20_000 }).toBe(false);
    expect(t.errors).toEqual([]);
  }, 120_000);
});
