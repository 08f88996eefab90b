/**
 * Phones and small screens in the three samples, in headless Chromium against the real server:
 * a phone (390x844, touch emulation) opens with every panel folded, reaches its own @username in
 * the friends drawer, walks by tapping, joins voice and talks with the on-screen hold-to-talk
 * button (real touch events through the DevTools protocol), and a desktop player (1024x640) hears
 * it, while the desktop's chat panel, which covers the spot where the phone player stands, folds
 * away from them as they speak and opens again after. At 390x844, 1024x640 and 1280x800 with voice
 * joined (the bar a row taller) no part of the canvas is under the bar or cut by the page, and
 * the drawing buffer follows the canvas's box. Touch targets on the phone are at least 44 px.
 * Screenshots: test-results/touch-<sample>-*.png.
 *
 * Needs Debian's chromium at /usr/bin/chromium (or CHROMIUM_PATH); never downloads a browser.
 */
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_MEDIA_ARGS, launchChromium, WEBGL_ARGS } from '../../../tools/testing/chromium.ts';
import { openPlayer, RESULTS_DIR, startSampleServer, waitReady, watchErrors, type SampleServer } from '../../../tools/testing/sampleServer.ts';

const SAMPLES = ['phaser-lobby', 'babylon-lobby', 'playcanvas-lobby'] as const;
const PHONE = { width: 390, height: 844 };
// Widest first: turning narrow folds the panels, so the wide screenshots show them open.
const SIZES = [{ width: 1280, height: 800 }, { width: 1024, height: 640 }, PHONE] as const;

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The part of the samples' test hook this test reads (each sample's hook has more). */
interface Hook {
  userId: string;
  session: { safeArea(): unknown };
  client: {
    getCurrentUserV2(): { username: string };
    sendDiscordFriendRequest(username: string): Promise<void>;
    acceptDiscordFriendRequest(userId: string): Promise<void>;
  };
  voice?: { talking: boolean; call?: { getStatus(): number; getPTTActive(): boolean; getPlaybackLevel(): number } };
  avatarPosition(userId: string): { x: number; y: number } | undefined;
  avatarBox(userId: string): Rect | undefined;
  isSpeakingShown(userId: string): boolean;
  worldToClient(x: number, y: number): { x: number; y: number } | undefined;
}
declare const window: Window & { __socialLayerSample: Hook };

let samples: SampleServer;
let browser: Browser;
const contexts: BrowserContext[] = [];
const errors: string[] = [];

beforeAll(async () => {
  samples = await startSampleServer(SAMPLES, 'Touch and voice test');
  browser = await launchChromium([...WEBGL_ARGS, ...FAKE_MEDIA_ARGS]);
}, 240_000);

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
  await samples?.close();
});

/** A phone: a small touch screen that reports a coarse pointer and no hover. */
async function openPhone(name: string, url: string): Promise<Page> {
  const context = await browser.newContext({ viewport: PHONE, hasTouch: true, isMobile: true });
  contexts.push(context);
  const page = await context.newPage();
  watchErrors(page, name, errors);
  await page.goto(url);
  return page;
}

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5 && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;
}

/**
 * What must hold for the field at any size: the canvas lies below the bar, inside its container
 * and the viewport, and its drawing buffer has its box's shape (it was resized with it).
 */
function fieldProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const bar = document.querySelector('.sl-bar')!.getBoundingClientRect();
    const game = document.getElementById('game')!.getBoundingClientRect();
    const canvas = document.querySelector<HTMLCanvasElement>('#game canvas')!;
    const box = canvas.getBoundingClientRect();
    const say = (what: string) => problems.push(`${what}: canvas ${JSON.stringify(box.toJSON())}, bar ${JSON.stringify(bar.toJSON())}, game ${JSON.stringify(game.toJSON())}`);
    if (box.width < 50 || box.height < 50) say('no field');
    if (box.top < bar.bottom - 0.5) say('the bar covers the top of the field');
    if (box.bottom > Math.min(game.bottom, innerHeight) + 0.5) say('the bottom of the field is cut');
    if (box.left < -0.5 || box.right > Math.min(game.right, innerWidth) + 0.5) say('the sides of the field are cut');
    const shape = canvas.width / canvas.height / (box.width / box.height);
    if (Math.abs(shape - 1) > 0.03) say(`the drawing buffer ${canvas.width}x${canvas.height} is not the box's shape`);
    return problems;
  });
}

/** Visible controls a finger must hit, smaller than 44 px either way. */
function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('.sl-bar button, .sl-bar input, .sl-panel-toggle, .sl-overlay button, .sl-overlay input')]
      .filter((node) => {
        const r = node.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && getComputedStyle(node).visibility !== 'hidden';
      })
      .map((node) => ({ node, r: node.getBoundingClientRect() }))
      .filter(({ r }) => r.width < 44 - 0.5 || r.height < 44 - 0.5)
      .map(({ node, r }) => `${node.className} "${node.textContent}" ${Math.round(r.width)}x${Math.round(r.height)}`),
  );
}

/** Each visible panel's name and page rectangle. */
function panelRects(page: Page): Promise<(Rect & { name: string; expanded: boolean })[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('.sl-panel')]
      .filter((node) => getComputedStyle(node).visibility !== 'hidden')
      .map((node) => {
        const r = node.getBoundingClientRect();
        const expanded = node.querySelector('.sl-panel-toggle')?.getAttribute('aria-expanded') === 'true';
        return { name: node.getAttribute('aria-label') ?? '', expanded, x: r.x, y: r.y, width: r.width, height: r.height };
      }),
  );
}

const callStatus = (page: Page) => page.evaluate(() => window.__socialLayerSample.voice?.call?.getStatus() ?? null);
const playbackLevel = (page: Page) => page.evaluate(() => window.__socialLayerSample.voice?.call?.getPlaybackLevel() ?? 0);

describe('the overlay on a phone and on small screens', () => {
  for (const sample of SAMPLES) {
    it(`${sample}: a phone talks with the on-screen button and is heard; panels fold; the bar never hides the field`, { timeout: 300_000 }, async () => {
      const phone = await openPhone(`${sample} phone`, samples.url(sample));
      const phoneInfo = await waitReady(phone, errors);
      const desk = (await openPlayer(browser, `${sample} desk`, phone.url(), errors, { width: 1024, height: 640 })).page;
      contexts.push(desk.context());
      await waitReady(desk, errors);
      const shot = (page: Page, name: string) => page.screenshot({ path: join(RESULTS_DIR, `touch-${sample}-${name}.png`) });

      // On the phone every panel starts folded to its title: the field gets the screen.
      await expect.poll(() => phone.locator('.sl-panel-toggle[aria-expanded="false"]').count(), { timeout: 10_000 }).toBe(3);
      expect(await phone.locator('.sl-panel-toggle[aria-expanded="true"]').count()).toBe(0);
      // The desktop keeps them open (no touch, wide enough).
      expect(await desk.locator('.sl-panel-toggle[aria-expanded="true"]').count()).toBe(3);
      await shot(phone, '390x844-phone-folded');

      // The player's own @username, which friends add them by, is one tap away in the friends drawer.
      const username = await phone.evaluate(() => window.__socialLayerSample.client.getCurrentUserV2()!.username);
      await phone.locator('.sl-friends .sl-panel-toggle').tap();
      const you = phone.locator('.sl-friends-you-name');
      await expect.poll(() => you.textContent(), { timeout: 10_000 }).toBe(`@${username}`);
      const youBox = (await you.boundingBox())!;
      expect(youBox.x).toBeGreaterThanOrEqual(0);
      expect(youBox.x + youBox.width).toBeLessThanOrEqual(PHONE.width + 0.5);
      expect(youBox.y + youBox.height).toBeLessThanOrEqual(PHONE.height + 0.5);
      await shot(phone, '390x844-phone-friends-open');
      await phone.locator('.sl-friends .sl-panel-toggle').tap();

      // The phone player walks by tapping the field, to the lower left (under the desktop's chat).
      const spot = { x: 150, y: 500 };
      const tapAt = await phone.evaluate(([x, y]) => window.__socialLayerSample.worldToClient(x!, y!), [spot.x, spot.y]);
      await phone.touchscreen.tap(tapAt!.x, tapAt!.y);
      // Both pages draw the phone player there (the phone's own view says whether the tap missed).
      await expect
        .poll(async () => {
          const seen = async (page: Page) => (await page.evaluate((id) => window.__socialLayerSample.avatarPosition(id), phoneInfo.userId)) ?? null;
          const phoneSees = await seen(phone);
          const deskSees = await seen(desk);
          const near = (p: { x: number; y: number } | null) => p !== null && Math.hypot(p.x - spot.x, p.y - spot.y) < 30;
          return { phone: near(phoneSees), desk: near(deskSees), phoneSees, deskSees, tapAt };
        }, { timeout: 45_000 })
        .toMatchObject({ phone: true, desk: true });

      // Both join voice: the phone with a tap, the desktop with a click.
      await phone.locator('.sl-bar-voice').tap();
      await desk.locator('.sl-bar-voice').click();
      for (const page of [phone, desk]) await expect.poll(() => callStatus(page), { timeout: 30_000 }).toBe(4);

      // The phone shows a hold-to-talk button a finger can hit, inside the screen; the desktop does not.
      const talk = phone.locator('.sl-bar-talk');
      await expect.poll(() => talk.isEnabled(), { timeout: 10_000 }).toBe(true);
      const talkBox = (await talk.boundingBox())!;
      expect(talkBox.width).toBeGreaterThanOrEqual(44);
      expect(talkBox.height).toBeGreaterThanOrEqual(44);
      expect(talkBox.x + talkBox.width).toBeLessThanOrEqual(PHONE.width + 0.5);
      expect(talkBox.y + talkBox.height).toBeLessThanOrEqual(PHONE.height + 0.5);
      expect(await desk.locator('.sl-bar-talk').isVisible()).toBe(false);
      expect(await smallTargets(phone)).toEqual([]);

      // The bar grew a row when voice was joined: the field still lies whole below it.
      for (const page of [phone, desk]) await expect.poll(() => fieldProblems(page), { timeout: 10_000 }).toEqual([]);

      // Released: the desktop hears nothing. Then a finger holds the button (touch events, which
      // the page sees as pointerdown with pointerType "touch").
      expect(await phone.evaluate(() => window.__socialLayerSample.voice!.call!.getPTTActive())).toBe(false);
      const cdp = await phone.context().newCDPSession(phone);
      const finger = { x: talkBox.x + talkBox.width / 2, y: talkBox.y + talkBox.height / 2 };
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [finger] });
      await expect.poll(() => phone.evaluate(() => window.__socialLayerSample.voice!.call!.getPTTActive()), { timeout: 5_000 }).toBe(true);
      expect(await talk.getAttribute('aria-pressed')).toBe('true');
      let loudest = 0;
      await expect
        .poll(async () => (loudest = Math.max(loudest, await playbackLevel(desk))), { timeout: 30_000, interval: 50 })
        .toBeGreaterThan(0.01);
      await expect.poll(() => desk.evaluate((id) => window.__socialLayerSample.isSpeakingShown(id), phoneInfo.userId), { timeout: 10_000 }).toBe(true);

      // On the desktop no panel covers the phone player while they speak (the chat folds away).
      await expect
        .poll(async () => {
          const speaker = await desk.evaluate((id) => window.__socialLayerSample.avatarBox(id), phoneInfo.userId);
          return speaker ? (await panelRects(desk)).filter((panel) => overlaps(panel, speaker)).map((panel) => panel.name) : ['no avatar'];
        }, { timeout: 10_000 })
        .toEqual([]);
      await shot(phone, '390x844-phone-talking');
      await shot(desk, '1024x640-desk-hearing');

      // The finger lifts: the microphone closes, and the desktop's chat opens again once they are quiet.
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
      await expect.poll(() => phone.evaluate(() => window.__socialLayerSample.voice!.call!.getPTTActive()), { timeout: 5_000 }).toBe(false);
      expect(await talk.getAttribute('aria-pressed')).toBe('false');
      await expect.poll(() => desk.evaluate((id) => window.__socialLayerSample.isSpeakingShown(id), phoneInfo.userId), { timeout: 30_000 }).toBe(false);
      await expect
        .poll(() => desk.locator('.sl-chat').evaluate((node) => `${node.className} ${JSON.stringify({ ...(node as HTMLElement).dataset })}`), { timeout: 10_000 })
        .not.toContain('sl-collapsed');

      // The V key still talks on the desktop.
      await desk.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await desk.keyboard.down('v');
      await expect.poll(() => desk.evaluate(() => window.__socialLayerSample.voice!.call!.getPTTActive()), { timeout: 5_000 }).toBe(true);
      await desk.keyboard.up('v');
      await expect.poll(() => desk.evaluate(() => window.__socialLayerSample.voice!.call!.getPTTActive()), { timeout: 5_000 }).toBe(false);

      // An invite toast on the phone, over its opened panels, is opaque: nothing shows through it.
      for (let closed = phone.locator('.sl-panel-toggle[aria-expanded="false"]'); (await closed.count()) > 0; ) await closed.first().tap();
      const deskId = await desk.evaluate(() => window.__socialLayerSample.userId);
      await desk.evaluate((name) => window.__socialLayerSample.client.sendDiscordFriendRequest(name), username);
      await phone.locator(`.sl-friend-request[data-user-id="${deskId}"]`).waitFor({ state: 'attached', timeout: 20_000 });
      await phone.evaluate((id) => window.__socialLayerSample.client.acceptDiscordFriendRequest(id), deskId);
      await desk.locator(`.sl-friend[data-user-id="${phoneInfo.userId}"] .sl-friend-invite`).click({ timeout: 20_000 });
      const toast = phone.locator(`.sl-toast[data-sender-id="${deskId}"]`);
      await toast.waitFor({ timeout: 20_000 });
      const background = await toast.evaluate((node) => getComputedStyle(node).backgroundColor);
      expect(background, 'toast background').toMatch(/^rgb\(/);
      await shot(phone, '390x844-phone-invite-toast');

      // Every size, in the call: the field whole below the bar; screenshots of each.
      for (const size of SIZES) {
        await desk.setViewportSize(size);
        await expect.poll(() => fieldProblems(desk), { timeout: 10_000 }).toEqual([]);
        // The PlayCanvas hint line (page text over the canvas) stays where no panel covers it.
        if (sample === 'playcanvas-lobby' && size.width >= 1024) {
          await expect
            .poll(async () => {
              const hint = await desk.locator('#hint').boundingBox();
              return hint ? (await panelRects(desk)).filter((panel) => overlaps(panel, hint)).map((panel) => panel.name) : ['hint not shown'];
            }, { timeout: 5_000 })
            .toEqual([]);
        }
        await shot(desk, `${size.width}x${size.height}-desk-in-voice`);
      }
      expect(errors).toEqual([]);
    });
  }
});
