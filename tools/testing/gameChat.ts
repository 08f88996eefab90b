/**
 * The browser steps of the scaffolded-game tests: a guest opens a game, signs in and joins its
 * lobby; a second guest opens the same address and lands in the same lobby; what one types in the
 * chat the other receives. The same for every engine (the game's test hook and the UI overlay's
 * chat are engine-independent).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { openPlayer, waitReady, type ReadyInfo } from './sampleServer.ts';

export interface Guest {
  context: BrowserContext;
  page: Page;
  info: ReadyInfo;
}

/** Opens `url` in a context of its own and waits until the guest is signed in and in the lobby. */
export async function joinGame(browser: Browser, name: string, url: string, errors: string[]): Promise<Guest> {
  const { context, page } = await openPlayer(browser, name, url, errors);
  const info = await waitReady(page, errors);
  expect(info.userId, name).toMatch(/^\d+$/);
  expect(info.lobbyId, name).toMatch(/^\d+$/);
  return { context, page, info };
}

/** Types `text` into the chat and sends it. */
export async function say(page: Page, text: string): Promise<void> {
  await page.locator('.sl-chat-input').fill(text);
  await page.locator('.sl-chat-input').press('Enter');
}

/** Waits until `page` shows the chat line `text`, and says who wrote it. */
export async function chatLineAuthor(page: Page, text: string): Promise<string | null> {
  const line = page.locator('.sl-chat-message', { hasText: text });
  await line.waitFor({ timeout: 30_000 });
  return line.getAttribute('data-author-id');
}

/**
 * Two guests of the game at `url` meet in one lobby and the first one's chat message reaches the
 * second. The second opens the first's address after it joined (the lobby it is in).
 */
export async function twoGuestsChat(browser: Browser, name: string, url: string, errors: string[]): Promise<{ a: Guest; b: Guest }> {
  const a = await joinGame(browser, `${name} A`, url, errors);
  const b = await joinGame(browser, `${name} B`, a.page.url(), errors);
  expect(b.info.userId, name).not.toBe(a.info.userId);
  expect(b.info.lobbyId, name).toBe(a.info.lobbyId);
  const text = `hello from ${name} ${Date.now()}`;
  await say(a.page, text);
  expect(await chatLineAuthor(b.page, text), name).toBe(a.info.userId);
  return { a, b };
}
