import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** Where the browser tests write their screenshots (the repository's test-results/). */
export const RESULTS = join(resolve(fileURLToPath(new URL('../../', import.meta.url))), 'test-results');

/** From the web app's sign-in page: follows the sign-up link and creates the account (the password every browser test uses). */
export async function fillSignUp(page: Page, login: string, name: string): Promise<void> {
  await page.click('a[href^="/signup"]');
  await page.fill('#login', login);
  await page.fill('#display_name', name);
  await page.fill('#password', 'correct horse battery');
  await page.click('#sign-up');
}

/** As fillSignUp, first checking the page was sent to /login (an /app visit without a session). */
export async function signUpFromLogin(page: Page, login: string, name: string): Promise<void> {
  expect(new URL(page.url()).pathname).toBe('/login');
  await fillSignUp(page, login, name);
}
