/**
 * End to end: the real server in-process serves the built sample; two headless Chromium
 * players (separate browser contexts, so separate device IDs) meet in one lobby, see each
 * other, chat, a click on the ground walks one avatar there on both screens, and holding V in
 * the lobby's call lights the speaker's ring on the other screen. PlayCanvas draws with WebGL,
 * which headless Chromium without a GPU gets from SwiftShader; voice uses a fake microphone.
 *
 * Needs Debian's chromium at /usr/bin/chromium (or CHROMIUM_PATH); never downloads a browser.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { FAKE_MEDIA_ARGS, WEBGL_ARGS } from '../../../tools/testing/chromium.ts';
import { avatarPosition, clickWorld, memberRow, RESULTS_DIR, sampleSuite } from '../../../tools/testing/sampleServer.ts';
import type { SampleWindow } from '../src/main.ts';

const t = sampleSuite(['playcanvas-lobby'], 'PlayCanvas lobby test', [...WEBGL_ARGS, ...FAKE_MEDIA_ARGS]);

/**
 * How far the colors the WebGL canvas drew in a short column just above a world spot stray from
 * the ground's color at an empty spot (0-441, RGB distance): an avatar standing there shows up
 * as a large number.
 */
async function drawnContrast(page: Page, at: { x: number; y: number }, empty: { x: number; y: number }): Promise<number> {
  return page.evaluate(
    ([spot, ground]) =>
      new Promise<number>((resolve) => {
        const hook = (window as unknown as SampleWindow).__socialLayerSample;
        const app = hook.app!;
        // The sample draws on demand: ask for a frame, and read it before it is composited.
        app.renderNextFrame = true;
        app.once('frameend', () => {
          const canvas = app.graphicsDevice.canvas as HTMLCanvasElement;
          const copy = document.createElement('canvas');
          copy.width = canvas.width;
          copy.height = canvas.height;
          const context = copy.getContext('2d')!;
          context.drawImage(canvas, 0, 0);
          const rect = canvas.getBoundingClientRect();
          const toCanvas = (p: { x: number; y: number }) => ({
            x: Math.round(((p.x - rect.left) * canvas.width) / rect.width),
            y: Math.round(((p.y - rect.top) * canvas.height) / rect.height),
          });
          const pixel = (x: number, y: number) => context.getImageData(x, y, 1, 1).data;
          const a = toCanvas(hook.worldToClient(spot.x, spot.y)!);
          const g = toCanvas(hook.worldToClient(ground.x, ground.y)!);
          const reference = pixel(g.x, g.y);
          let most = 0;
          for (let dy = 0; dy <= 50; dy += 2) {
            const p = pixel(a.x, a.y - dy);
            most = Math.max(most, Math.hypot(p[0]! - reference[0]!, p[1]! - reference[1]!, p[2]! - reference[2]!));
          }
          resolve(most);
        });
      }),
    [at, empty] as const,
  );
}


describe('playcanvas-lobby sample in Chromium', () => {
  it('two players meet, see each other, chat, a click walks an avatar on both screens, push-to-talk lights the speaker', async () => {
    const base = `${t.server.url}/games/playcanvas-lobby/`;

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

    // Each sees the other: connected in the member list, an avatar in the world, a name tag.
    for (const [page, other] of [
      [a.page, infoB],
      [b.page, infoA],
    ] as const) {
      const row = memberRow(page, other.userId);
      await expect.poll(() => row.getAttribute('data-connected'), { timeout: 20_000 }).toBe('true');
      await expect.poll(() => row.locator('.sl-member-name').textContent(), { timeout: 20_000 }).toBe(other.displayName);
      await expect.poll(() => avatarPosition(page, other.userId), { timeout: 20_000 }).not.toBeNull();
      await expect
        .poll(() => page.locator(`.avatar-label[data-user-id="${other.userId}"]`).textContent(), { timeout: 20_000 })
        .toBe(other.displayName);
    }

    // The canvas really draws (WebGL): B's avatar stands out from the bare ground on A's screen.
    const spotB = (await avatarPosition(a.page, infoB.userId))!;
    expect(await drawnContrast(a.page, spotB, { x: 60, y: 590 })).toBeGreaterThan(100);

    // A chats; B's panel shows it.
    const text = `hello from A ${Date.now()}`;
    await a.page.locator('.sl-chat-input').fill(text);
    await a.page.locator('.sl-chat-input').press('Enter');
    const received = b.page.locator('.sl-chat-message', { hasText: text });
    await received.waitFor({ timeout: 20_000 });
    expect(await received.getAttribute('data-author-id')).toBe(infoA.userId);
    expect(await received.locator('.sl-chat-author').textContent()).toBe(infoA.displayName);

    // A clicks the ground: its avatar walks there, and B sees it arrive. The pick is a ray from
    // the camera met with the ground plane, so the spot comes back within a unit of the target.
    const target = { x: 700, y: 380 };
    await clickWorld(a.page, target.x, target.y);
    const near = (p: { x: number; y: number } | null) => p !== null && Math.abs(p.x - target.x) <= 2 && Math.abs(p.y - target.y) <= 2;
    await expect.poll(async () => near(await avatarPosition(a.page, infoA.userId)), { timeout: 20_000 }).toBe(true);
    const landed = (await avatarPosition(a.page, infoA.userId))!;
    await expect.poll(() => avatarPosition(b.page, infoA.userId), { timeout: 20_000 }).toEqual(landed);

    // A click on a panel over the canvas is not a pick: the avatar stays.
    await a.page.locator('.sl-chat-input').click();
    await a.page.waitForTimeout(300);
    expect(await avatarPosition(a.page, infoA.userId)).toEqual(landed);

    await a.page.screenshot({ path: join(RESULTS_DIR, 'playcanvas-lobby-player-a.png') });
    await b.page.screenshot({ path: join(RESULTS_DIR, 'playcanvas-lobby-player-b.png') });

    // Voice: both join the lobby's call; while A holds V (push-to-talk, bound through the
    // plugin), B shows A's speaking ring and a speaking name tag; releasing V clears them.
    await a.page.locator('.sl-bar-voice').click();
    await b.page.locator('.sl-bar-voice').click();
    for (const page of [a.page, b.page]) {
      await expect.poll(() => page.locator('.sl-bar-voice-hint').textContent(), { timeout: 30_000 }).toBe('Hold V to talk');
    }
    const speakingOnB = () =>
      b.page.evaluate((id) => (window as unknown as SampleWindow).__socialLayerSample.isSpeakingShown(id), infoA.userId);
    const tagA = b.page.locator(`.avatar-label[data-user-id="${infoA.userId}"]`);
        // The chat input still has focus from the click above, and typing there never talks.
    await a.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await a.page.keyboard.down('v');
    await expect.poll(speakingOnB, { timeout: 30_000 }).toBe(true);
    await expect.poll(() => tagA.getAttribute('class'), { timeout: 5_000 }).toContain('speaking');
    await b.page.screenshot({ path: join(RESULTS_DIR, 'playcanvas-lobby-voice-listener.png') });
    await a.page.keyboard.up('v');
    // Under load (two cores drawing WebGL in software) captured audio can queue a few seconds.
    await expect.poll(speakingOnB, { timeout: 20_000 }).toBe(false);
    expect(await tagA.getAttribute('class')).not.toContain('speaking');

    expect(t.errors).toEqual([]);
  }, 150_000);
});
