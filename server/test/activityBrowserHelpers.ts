// What the Chromium tests of embedded apps (activityBrowser, activityLobbySample) share: signing up
// in the web app, finding the activity's own frame inside the bridge frame, loopback servers.
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Frame, Page } from 'playwright-core';
import type { TestServer } from './harness.ts';

export const RESULTS = join(resolve(fileURLToPath(new URL('../../', import.meta.url))), 'test-results');

/** Chromium resolves the proxy host's subdomains to loopback with this rule (no DNS in tests). */
export const PROXY_HOST_RULE = '--host-resolver-rules=MAP *.activities.localhost 127.0.0.1';

export const port = (s: Server): number => (s.address() as AddressInfo).port;

export async function listen(handler: http.RequestListener): Promise<Server> {
  const s = http.createServer(handler);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return s;
}

/** Signs up on the web app's sign-in page (the page is on /app, signed out) and waits for /app. */
export async function signUp(page: Page, t: TestServer, login: string, name: string): Promise<string> {
  await page.goto(`${t.server.url}/app`);
  await page.click('a[href^="/signup"]');
  await page.fill('#login', login);
  await page.fill('#display_name', name);
  await page.fill('#password', 'correct horse battery');
  await page.click('#sign-up');
  await page.waitForURL(`${t.server.url}/app`);
  return (await t.server.store.database.db.selectFrom('users').select('id').where('username', '=', login).executeTakeFirstOrThrow()).id;
}

/** The activity's own frame (inside the platform's bridge frame on the proxy host). */
export async function activityFrame(page: Page): Promise<Frame> {
  await page.waitForSelector('#activity-frame');
  for (let i = 0; i < 300; i++) {
    const f = page.frames().find((fr) => fr.url().includes('.activities.localhost') && !fr.url().includes('/.platform/'));
    if (f) return f;
    await page.waitForTimeout(100);
  }
  throw new Error('no activity frame');
}
