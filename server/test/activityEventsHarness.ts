// Shared set-up of the activity host-event browser tests (activityHostEvents, activityLiveness,
// activityLobbyShelf, activityVoiceSpeaking):
// a dev-mode server, the test activity (fixtures/activityEvents) bundled with esbuild and served by a
// loopback "game" server behind the root mapping, its backend (the OAuth2 code exchange) behind /api,
// and Debian's Chromium with fake media devices and *.activities.localhost mapped to loopback.
import { mkdirSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as esbuild } from 'esbuild';
import type { Browser, BrowserContextOptions, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { FAKE_MEDIA_ARGS, launchChromium } from '../../tools/testing/chromium.ts';
import { ActivityService } from '../src/activities/ActivityService.ts';
import { UrlPolicy } from '../src/config/urlPolicy.ts';
import { LocalEventBus } from '../src/events/EventBus.ts';
import { build } from '../web/build.mjs';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';

export const RESULTS = join(resolve(fileURLToPath(new URL('../../', import.meta.url))), 'test-results');

export interface ActivityEnv {
  t: TestServer;
  bus: LocalEventBus;
  browser: Browser;
  close(): Promise<void>;
}

const listen = async (handler: http.RequestListener) => {
  const s = http.createServer(handler);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return s;
};
const port = (s: Server) => (s.address() as AddressInfo).port;

export async function startActivityEnv(settings: { supported_platforms?: string[]; orientation?: string } = {}): Promise<ActivityEnv> {
  mkdirSync(RESULTS, { recursive: true });
  await build();
  const bus = new LocalEventBus();
  const t = await startTestServer({ dev: true, bus, accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } }, commerce: { scheduler: false } });
  const bundle = await esbuild({
    entryPoints: [fileURLToPath(new URL('./fixtures/activityEvents/activity.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'esm',
    define: { CLIENT_ID: JSON.stringify(t.app.id) },
  });
  const js = bundle.outputFiles[0]!.text;
  const game = await listen((req, res) => {
    if (req.url?.startsWith('/activity.js')) return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><body style="background:#123;color:#fff;font:12px monospace;margin:8px"><h1>Event activity</h1><pre id="log" style="white-space:pre-wrap"></pre><script type="module" src="/activity.js"></script>');
  });
  const backend = await listen(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const { code } = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { code?: string };
    const r = await fetch(`${t.api}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'authorization_code', code: code ?? '', client_id: t.app.id, client_secret: t.app.clientSecret }) });
    res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text());
  });
  await new ActivityService(t.server.store, new UrlPolicy(true)).updateSettings(t.app.id, {
    enabled: true,
    url_mappings: [{ prefix: '/', target: `http://127.0.0.1:${port(game)}` }, { prefix: '/api', target: `http://127.0.0.1:${port(backend)}` }],
    ...settings,
  } as never);
  const browser = await launchChromium([...FAKE_MEDIA_ARGS, '--host-resolver-rules=MAP *.activities.localhost 127.0.0.1']);
  return {
    t,
    bus,
    browser,
    async close() {
      await browser.close();
      await t.close();
      game.close();
      backend.close();
    },
  };
}

/**
 * Starts the environment before the file's tests and closes it after them; the tests read `env()`.
 * One per file: each browser test file has its own server and Chromium.
 */
export function useActivityEnv(settings?: Parameters<typeof startActivityEnv>[0]): () => ActivityEnv {
  let env: ActivityEnv | undefined;
  beforeAll(async () => {
    env = await startActivityEnv(settings);
  }, 180_000);
  afterAll(async () => {
    await env?.close();
    cleanupTempDirs();
  });
  return () => env!;
}

type Person = Awaited<ReturnType<typeof person>>;

/**
 * A guild made by `owner` (its default text and voice channels), with `members` joined through an
 * invite, and the web app's URL of the activity in its voice channel.
 */
export async function guildWithChannels(env: ActivityEnv, owner: Person, name: string, members: Person[] = []) {
  const { t } = env;
  const g = await t.req('POST', '/guilds', { token: owner.token, body: { name } });
  expect(g.status).toBe(201);
  const channels = (await t.req('GET', `/guilds/${g.body.id}/channels`, { token: owner.token })).body as { id: string; type: number }[];
  const voice = channels.find((c) => c.type === 2)!.id;
  const text = channels.find((c) => c.type === 0)!.id;
  const join = async (p: Person) => {
    const inv = await t.req('POST', `/channels/${text}/invites`, { token: owner.token, body: {} });
    expect((await t.req('POST', `/invites/${inv.body.code}`, { token: p.token })).status).toBe(200);
  };
  for (const p of members) await join(p);
  const activityUrl = `${t.server.url}/app/activity/${t.app.id}?channel_id=${voice}&guild_id=${g.body.id}`;
  return { id: g.body.id as string, voice, text, activityUrl, join };
}

/** A new person signed up in their own browser context; `errors` collects their page errors. */
export async function person(env: ActivityEnv, login: string, name: string, options: BrowserContextOptions = { viewport: { width: 1280, height: 800 } }) {
  const context = await env.browser.newContext(options);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => void errors.push(`${login}: ${e.message}`));
  await page.goto(`${env.t.server.url}/app`);
  await page.click('a[href^="/signup"]');
  await page.fill('#login', login);
  await page.fill('#display_name', name);
  await page.fill('#password', 'correct horse battery');
  await page.click('#sign-up');
  await page.waitForURL(`${env.t.server.url}/app`);
  const id = (await env.t.server.store.database.db.selectFrom('users').select('id').where('username', '=', login).executeTakeFirstOrThrow()).id;
  const token = await env.t.server.store.tokens.issue(id, (await env.t.server.store.applications.firstParty()).id, ['identify', 'guilds', 'relationships.read', 'relationships.write'], 3600);
  return { page, context, id, token, errors };
}

/** The activity's own frame (inside the bridge frame). */
export async function activityFrame(page: Page): Promise<Frame> {
  await page.waitForSelector('#activity-frame', { timeout: 60_000 });
  for (let i = 0; i < 600; i++) {
    const f = page.frames().find((fr) => fr.url().includes('.activities.localhost') && !fr.url().includes('/.platform/'));
    if (f) return f;
    await page.waitForTimeout(100);
  }
  throw new Error('no activity frame');
}

export const results = (f: Frame) => f.evaluate(() => (window as unknown as { results: Record<string, any> }).results ?? {});

/** Waits (generously: the machine is shared) until the activity has written `key`. */
export async function until(f: Frame, key: string, timeoutMs = 60_000): Promise<Record<string, any>> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const r = await results(f);
    if (r.error) throw new Error(`activity error: ${r.error}`);
    if (r[key] !== undefined) return r;
    await f.page().waitForTimeout(150);
  }
  throw new Error(`activity never reached ${key}: ${JSON.stringify(await results(f))}`);
}
