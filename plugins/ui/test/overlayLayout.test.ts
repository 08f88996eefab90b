/**
 * The overlay in the three samples, in headless Chromium against the real server: at 1280x800,
 * 1024x640 and 390x844, with the panels open and collapsed, every panel and the player bar lie
 * inside the viewport, no two panels overlap, names are whole, and the safe area is clear of
 * panels (screenshots in test-results/overlay-*.png). Then axe-core checks the overlay and the
 * bar for serious accessibility violations, and two players show that a friend request row
 * carries the sender's whole name and that the sender's panel follows the acceptance.
 *
 * Needs Debian's chromium at /usr/bin/chromium (or CHROMIUM_PATH); never downloads a browser.
 */
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, WEBGL_ARGS } from '../../../tools/testing/chromium.ts';
import { openPlayer, RESULTS_DIR, startSampleServer, waitReady, type Player, type SampleServer } from '../../../tools/testing/sampleServer.ts';

const SAMPLES = ['phaser-lobby', 'babylon-lobby', 'playcanvas-lobby'] as const;
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 1024, height: 640 },
  { width: 390, height: 844 },
] as const;

interface Box {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

let samples: SampleServer;
let browser: Browser;
const players: Player[] = [];
const errors: string[] = [];

beforeAll(async () => {
  samples = await startSampleServer(SAMPLES, 'Overlay layout test');
  browser = await launchChromium(WEBGL_ARGS);
}, 240_000);

afterAll(async () => {
  for (const player of players) await player.context.close().catch(() => {});
  await browser?.close();
  await samples?.close();
});

async function open(name: string, url: string, viewport: { width: number; height: number } = VIEWPORTS[0]): Promise<Player> {
  const player = await openPlayer(browser, name, url, errors, viewport);
  players.push(player);
  return player;
}

/** Boxes of what must stay on screen: each panel, and each control of the player bar. */
function layoutBoxes(page: Page): Promise<{ panels: Box[]; bar: Box[]; game: Box; names: { text: string; clipped: boolean }[] }> {
  return page.evaluate(() => {
    const box = (name: string, node: Element) => {
      const r = node.getBoundingClientRect();
      return { name, x: r.x, y: r.y, width: r.width, height: r.height };
    };
    const visible = (node: Element) => node.getBoundingClientRect().width > 0 && getComputedStyle(node).visibility !== 'hidden';
    const panels = [...document.querySelectorAll('.sl-panel')].map((node) => box(node.getAttribute('aria-label') ?? node.className, node));
    const bar = [...document.querySelectorAll('.sl-bar h1, .sl-bar-status, .sl-bar-controls > *')].filter(visible).map((node) => box(node.className || node.tagName, node));
    const names = [...document.querySelectorAll('.sl-member-name, .sl-friend-name')].filter(visible).map((node) => {
      const el = node as HTMLElement;
      return { text: el.textContent ?? '', clipped: el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1 };
    });
    return { panels, bar, game: box('game', document.getElementById('game')!), names };
  });
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5 && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;
}

function expectInside(inner: Box, outer: { x: number; y: number; width: number; height: number }, what: string): void {
  const where = `${what}: ${JSON.stringify(inner)} in ${JSON.stringify(outer)}`;
  expect(inner.width, where).toBeGreaterThan(0);
  expect(inner.x, where).toBeGreaterThanOrEqual(outer.x - 0.5);
  expect(inner.y, where).toBeGreaterThanOrEqual(outer.y - 0.5);
  expect(inner.x + inner.width, where).toBeLessThanOrEqual(outer.x + outer.width + 0.5);
  expect(inner.y + inner.height, where).toBeLessThanOrEqual(outer.y + outer.height + 0.5);
}

/** Two frames, so a resize has been laid out and observed. */
const settle = (page: Page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

async function expandAll(page: Page): Promise<void> {
  const closed = page.locator('.sl-panel-toggle[aria-expanded="false"]');
  for (let left = await closed.count(); left > 0; left = await closed.count()) await closed.first().click();
}

/** The toggle key, pressed with focus in the game (not in a panel or a field). */
async function collapseAllWithKey(page: Page): Promise<void> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('Shift+Tab');
  await expect.poll(() => page.locator('.sl-panel-toggle[aria-expanded="true"]').count()).toBe(0);
}

describe('overlay layout in the samples', () => {
  for (const sample of SAMPLES) {
    it(`${sample}: panels and bar fit, never overlap, names whole, open and collapsed, at three sizes`, async () => {
      const a = await open(`${sample} A`, samples.url(sample));
      const infoA = await waitReady(a.page, errors);
      // A second player with a long name, so the member list has two rows to fit.
      const b = await open(`${sample} B`, a.page.url());
      await waitReady(b.page, errors);
      await b.page.locator('.sl-bar-name-input').fill('Brave Badger the Magnificent 42');
      await b.page.locator('.sl-bar-name-input').press('Enter');
      await expect.poll(() => a.page.locator('.sl-member-name', { hasText: 'Brave Badger the Magnificent 42' }).count(), { timeout: 20_000 }).toBe(1);
      expect(infoA.userId).toMatch(/^\d+$/);

      for (const viewport of VIEWPORTS) {
        await a.page.setViewportSize(viewport);
        for (const state of ['open', 'collapsed'] as const) {
          if (state === 'open') await expandAll(a.page);
          else await collapseAllWithKey(a.page);
          await settle(a.page);
          const label = `${sample} ${viewport.width}x${viewport.height} ${state}`;
          await a.page.screenshot({ path: join(RESULTS_DIR, `overlay-${sample}-${viewport.width}x${viewport.height}-${state}.png`) });
          const { panels, bar, game, names } = await layoutBoxes(a.page);
          const screen = { x: 0, y: 0, ...viewport };
          expect(panels.map((p) => p.name).sort(), label).toEqual(['Friends', 'Lobby chat', 'Players']);
          for (const panel of panels) expectInside(panel, game, `${label} panel ${panel.name}`);
          for (const control of bar) expectInside(control, screen, `${label} bar ${control.name}`);
          for (let i = 0; i < panels.length; i++) {
            for (let j = i + 1; j < panels.length; j++) expect(overlaps(panels[i]!, panels[j]!), `${label}: ${panels[i]!.name} overlaps ${panels[j]!.name}`).toBe(false);
          }
          if (state === 'open') {
            expect(names.map((n) => n.text), label).toContain('Brave Badger the Magnificent 42');
            for (const name of names) expect(name.clipped, `${label}: name "${name.text}" is cut`).toBe(false);
          } else {
            for (const panel of panels) expect(panel.height, `${label}: collapsed ${panel.name}`).toBeLessThan(48);
          }
          // The safe area the game is told about is clear of every panel.
          const safe = await a.page.evaluate(() => {
            const session = (window as unknown as { __socialLayerSample: { session: { safeArea(): unknown } } }).__socialLayerSample.session;
            return session.safeArea() as { left: number; top: number; width: number; height: number };
          });
          const safeBox = { name: 'safe area', x: game.x + safe.left, y: game.y + safe.top, width: safe.width, height: safe.height };
          expect(safeBox.width * safeBox.height, `${label}: safe area`).toBeGreaterThan(0);
          for (const panel of panels) expect(overlaps(safeBox, panel), `${label}: safe area under ${panel.name}`).toBe(false);
          // The Phaser sample keeps its hint text in the safe area: never under a panel.
          if (sample === 'phaser-lobby') {
            await expect.poll(async () => {
              const hint = await a.page.evaluate(() => (window as unknown as { __socialLayerSample: { hintBox(): Box | undefined } }).__socialLayerSample.hintBox() ?? null);
              return hint && panels.filter((panel) => overlaps({ ...hint, name: 'hint' }, panel)).map((p) => p.name);
            }, { timeout: 5_000 }).toEqual([]);
          }
        }
      }

      // Shift+Tab inside a panel keeps its meaning: focus moves back, nothing collapses.
      await a.page.setViewportSize(VIEWPORTS[0]);
      await expandAll(a.page);
      await a.page.locator('.sl-chat-input').focus();
      await a.page.keyboard.press('Shift+Tab');
      expect(await a.page.locator('.sl-panel-toggle[aria-expanded="false"]').count()).toBe(0);
      expect(await a.page.evaluate(() => document.activeElement?.className)).not.toBe('sl-chat-input');

      // axe-core on the overlay and the player bar: no serious or critical violations.
      const results = await new AxeBuilder({ page: a.page }).include('.sl-overlay').include('.sl-bar').analyze();
      const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)).toEqual([]);
      expect(results.passes.length).toBeGreaterThan(10);
      expect(errors).toEqual([]);
    }, 240_000);
  }

  it('a friend request shows the whole name, and the sender sees the friend once accepted', async () => {
    const url = samples.url('phaser-lobby');
    const host = await open('Host', url, { width: 1024, height: 640 });
    await waitReady(host.page, errors);
    const sender = await open('Sender', url, { width: 1024, height: 640 });
    const senderInfo = await waitReady(sender.page, errors);
    await sender.page.locator('.sl-bar-name-input').fill('Brave Badger the Magnificent 42');
    await sender.page.locator('.sl-bar-name-input').press('Enter');
    const hostUsername = await host.page.evaluate(() => (window as unknown as { __socialLayerSample: { client: { getCurrentUserV2(): { username: string } } } }).__socialLayerSample.client.getCurrentUserV2().username);
    const hostName = (await host.page.locator('.sl-bar-name-input').inputValue()).trim();

    await sender.page.locator('.sl-friends-input').fill(hostUsername);
    await sender.page.locator('.sl-friends-input').press('Enter');
    await expect.poll(() => sender.page.locator('.sl-friends-status').textContent(), { timeout: 20_000 }).toBe(`Request sent to ${hostUsername}`);

    const request = host.page.locator(`.sl-friend-request[data-user-id="${senderInfo.userId}"]`);
    await request.waitFor({ timeout: 20_000 });
    const name = request.locator('.sl-friend-name');
    await expect.poll(() => name.textContent(), { timeout: 20_000 }).toBe('Brave Badger the Magnificent 42');
    const fits = await name.evaluate((node) => {
      const panel = node.closest('.sl-panel')!.getBoundingClientRect();
      const r = node.getBoundingClientRect();
      return node.scrollWidth <= node.clientWidth + 1 && r.right <= panel.right && r.left >= panel.left;
    });
    expect(fits).toBe(true);
    await host.page.screenshot({ path: join(RESULTS_DIR, 'overlay-friend-request.png') });
    await request.locator('.sl-friend-accept').click();

    // The sender's panel follows: no more "Request sent", the host is a friend.
    await expect.poll(() => sender.page.locator('.sl-friends-status').textContent(), { timeout: 20_000 }).toBe(`You and ${hostName} are friends`);
    await sender.page.locator(`.sl-friend:not(.sl-friend-request) .sl-friend-name`, { hasText: hostName }).waitFor({ timeout: 20_000 });
    expect(await sender.page.locator('.sl-friend-request').count()).toBe(0);
    await sender.page.screenshot({ path: join(RESULTS_DIR, 'overlay-request-accepted.png') });
    expect(errors).toEqual([]);
  }, 120_000);
});
