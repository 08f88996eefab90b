// Embedded apps in Chromium (issue 17) with a bare test activity (test/fixtures/activity, bundled
// with esbuild; its backend a loopback server behind the /api mapping). The Done means run on the
// real sample in activityLobbySample.test.ts; this test keeps the host surface the sample does not
// use: every SDK command answered in one place, the host's events (VOICE_STATE_UPDATE from a voice
// channel, CURRENT_USER_UPDATE, ACTIVITY_LAYOUT_MODE_UPDATE, ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE),
// SET_ACTIVITY as rich presence a friend sees, GET_CHANNEL_PERMISSIONS, patchUrlMappings to a
// third target, bad input on the real postMessage path (forged frames from the web app's window
// and from a popup on another origin, junk, an unknown command, an oversized frame), the
// entry-point command (LAUNCH_ACTIVITY) and leaving an instance by closing the tab.
// Screenshots test-results/activity-*.png.
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as esbuild } from 'esbuild';
import type { Browser, Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../tools/testing/chromium.ts';
import { ActivityService } from '../src/activities/ActivityService.ts';
import { UrlPolicy } from '../src/config/urlPolicy.ts';
import { LocalEventBus } from '../src/events/EventBus.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { build } from '../web/build.mjs';
import { activityFrame, listen, port, PROXY_HOST_RULE, RESULTS, signUp } from './activityBrowserHelpers.ts';
import { cleanupTempDirs, RawGateway, startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
let browser: Browser;
let game: Server;
let backend: Server;
let cdn: Server;
let sku: string;
const bus = new LocalEventBus();
beforeAll(async () => {
  mkdirSync(RESULTS, { recursive: true });
  await build();
  t = await startTestServer({ dev: true, bus, accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } }, commerce: { scheduler: false } });
  sku = (await t.server.commerce.createSku(t.app.id, { name: 'Golden Hat', type: 'durable', price: 199 })).id;
  await t.server.commerce.checkout.setTestMode(t.app.id, true);
  cdn = await listen((_req, res) => res.end('hello from the cdn'));
  const bundle = await esbuild({
    entryPoints: [fileURLToPath(new URL('./fixtures/activity/activity.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'esm',
    define: { CLIENT_ID: JSON.stringify(t.app.id), CDN_TARGET: JSON.stringify(`127.0.0.1:${port(cdn)}`), SKU_ID: JSON.stringify(sku) },
  });
  const js = bundle.outputFiles[0]!.text;
  game = await listen((req, res) => {
    if (req.url?.startsWith('/activity.js')) return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><meta charset="utf-8"><body style="background:#123;color:#fff;font:14px monospace"><h1>Test activity</h1><pre id="log"></pre><script type="module" src="/activity.js"></script>');
  });
  // The activity's backend: the token exchange with the application's secret (no redirect_uri).
  backend = await listen(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const { code } = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { code?: string };
    const r = await fetch(`${t.api}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'authorization_code', code: code ?? '', client_id: t.app.id, client_secret: t.app.clientSecret }) });
    res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text());
  });
  await new ActivityService(t.server.store, new UrlPolicy(true)).updateSettings(t.app.id, {
    enabled: true,
    url_mappings: [{ prefix: '/', target: `http://127.0.0.1:${port(game)}` }, { prefix: '/api', target: `http://127.0.0.1:${port(backend)}` }, { prefix: '/cdn', target: `http://127.0.0.1:${port(cdn)}` }],
  });
  browser = await launchChromium([PROXY_HOST_RULE]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  for (const s of [game, backend, cdn]) s?.close();
  cleanupTempDirs();
});

const results = (f: Frame) => f.evaluate(() => (window as unknown as { results: Record<string, any> }).results ?? {});
async function until(f: Frame, key: string): Promise<Record<string, any>> {
  for (let i = 0; i < 300; i++) {
    const r = await results(f);
    if (r.error) throw new Error(`activity error: ${r.error}`);
    if (r[key] !== undefined) return r;
    await f.page().waitForTimeout(100);
  }
  throw new Error(`activity never reached ${key}: ${JSON.stringify(await results(f))}`);
}

describe('an activity in the web app (Chromium)', () => {
  it('launches in a voice channel, runs the SDK commands, and a second user joins through the shared link', async () => {
    const ctxA = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const a = await ctxA.newPage();
    const errors: string[] = [];
    a.on('pageerror', (e) => void errors.push(e.message));
    const ada = await signUp(a, t, 'ada_act', 'Ada');
    const adaToken = await t.server.store.tokens.issue(ada, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds', 'relationships.read', 'relationships.write'], 3600);
    const g = await t.req('POST', '/guilds', { token: adaToken, body: { name: 'Arcade' } });
    const voice = ((await t.req('GET', `/guilds/${g.body.id}/channels`, { token: adaToken })).body as any[]).find((c) => c.type === 2).id;
    const text = ((await t.req('GET', `/guilds/${g.body.id}/channels`, { token: adaToken })).body as any[]).find((c) => c.type === 0).id;

    // The game's bot is in the guild: the voice channel's shelf offers the activity; Start opens it.
    await guildServicesFor(t.server.store, bus).installBot(g.body.id, t.app.id, 0n);
    await a.goto(`${t.server.url}/app/guilds/${g.body.id}/channels/${voice}`);
    await a.waitForSelector(`#activity-shelf li[data-application-id="${t.app.id}"]`);
    await a.screenshot({ path: join(RESULTS, 'activity-shelf.png') });
    await a.click(`#activity-shelf li[data-application-id="${t.app.id}"] .activity-shelf-launch`);
    await a.waitForURL((u) => u.pathname === `/app/activity/${t.app.id}` && u.searchParams.get('channel_id') === voice);
    const fa = await activityFrame(a);
    // AUTHORIZE: the web app asks first (the SDK said prompt none, but nothing was granted yet).
    await a.waitForSelector('#activity-consent');
    await a.screenshot({ path: join(RESULTS, 'activity-consent.png') });
    await a.click('#activity-consent-allow');
    const r1 = await until(fa, 'waiting');
    expect(r1.ready).toMatchObject({ channelId: voice, guildId: g.body.id, platform: 'desktop', customId: null });
    expect(r1.tokens).toEqual({ viaProxy: true, plain: true });
    expect(r1.auth.user).toBe(ada);
    expect(r1.auth.scopes).toEqual(expect.arrayContaining(['identify', 'relationships.read']));
    expect(r1.skus).toEqual(['Golden Hat']);

    // shareLink: the web app's share dialog holds the link with the custom_id; referrer_id is dropped.
    await fa.evaluate(() => void (window as any).step('share'));
    await a.waitForSelector('#activity-share');
    const link = await a.inputValue('#activity-share-url');
    expect(link).toContain(`/app/activity/${t.app.id}?`);
    expect(new URL(link).searchParams.get('custom_id')).toBe('room-7');
    expect(link).not.toContain('referrer');
    await a.click('#activity-share-done');
    expect((await until(fa, 'shareDone')).share).toEqual({ success: true, didCopyLink: false, didSendMessage: false });

    // startPurchase: the checkout over the activity; ENTITLEMENT_CREATE reaches the activity.
    await fa.evaluate(() => void (window as any).step('purchase'));
    await a.waitForSelector('#checkout[data-step="confirm"]');
    await a.screenshot({ path: join(RESULTS, 'activity-checkout.png') });
    await a.click('#checkout-buy');
    await a.waitForSelector('#checkout-done');
    await a.click('#checkout-ok');
    expect((await until(fa, 'purchaseDone')).purchase).toEqual({ bought: [sku], event: sku });

    // The second user: friends with the first, opens the shared link, joins the same instance.
    const ctxB = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const b = await ctxB.newPage();
    b.on('pageerror', (e) => void errors.push(e.message));
    const bo = await signUp(b, t, 'bo_act', 'Bo');
    const boToken = await t.server.store.tokens.issue(bo, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds', 'relationships.read', 'relationships.write'], 3600);
    const inv = await t.req('POST', `/channels/${text}/invites`, { token: adaToken, body: {} });
    expect((await t.req('POST', `/invites/${inv.body.code}`, { token: boToken })).status).toBe(200);
    expect((await t.req('POST', '/users/@me/relationships', { token: adaToken, body: { username: 'bo_act' } })).status).toBe(204);
    expect((await t.req('POST', '/users/@me/relationships', { token: boToken, body: { username: 'ada_act' } })).status).toBe(204);

    await b.goto(link);
    const fb = await activityFrame(b);
    await b.waitForSelector('#activity-consent');
    await b.click('#activity-consent-allow');
    const rb = await until(fb, 'waiting');
    expect(rb.ready).toMatchObject({ instanceId: r1.ready.instanceId, customId: 'room-7', platform: 'mobile' });
    expect(await b.getAttribute('.activity-page', 'data-instance-id')).toBe(await a.getAttribute('.activity-page', 'data-instance-id'));

    // The first user's activity heard the second join (ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE, pushed over the Gateway).
    await expect.poll(async () => (await results(fa)).participantsEvent, { timeout: 15_000 }).toEqual([ada, bo].sort());
    // The host's events (the SDK's own schemas parse them): the current user, the layout mode; the
    // voice channel's states: Bo joins it (op 4, self-muted) and Ada's activity hears it from her
    // web app's Gateway session.
    await expect.poll(async () => (await results(fa)).currentUser, { timeout: 15_000 }).toBe(ada);
    expect((await results(fa)).layoutMode).toBe(0);
    const boGame = await RawGateway.open(t.server);
    // Bo in the game itself: the game's own token, not the web app's.
    const boGameToken = await t.server.store.tokens.issue(bo, t.app.id, ['identify', 'guilds', 'relationships.read', 'relationships.write'], 3600);
    boGame.send({ op: 2, d: { token: boGameToken, intents: 1 | 128, properties: { os: 'linux', browser: 'test', device: 'test' } } });
    await boGame.next((f) => f.t === 'READY');
    boGame.send({ op: 4, d: { guild_id: g.body.id, channel_id: voice, self_mute: true, self_deaf: false } });
    await expect.poll(async () => (await results(fa)).voiceStates, { timeout: 15_000 }).toEqual([{ user: bo, nick: 'Bo', self_mute: true }]);
    // SET_ACTIVITY is Ada's rich presence in the game: Bo, her friend playing it, sees it.
    await fa.evaluate(() => void (window as any).step('presence'));
    expect((await until(fa, 'presenceDone')).presence).toEqual({ state: 'In the arcade', application_id: t.app.id });
    const seen = await boGame.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === ada && f.d.activities.some((x: any) => x.state === 'In the arcade'), 15_000);
    expect(seen.d.activities.find((x: any) => x.application_id === t.app.id)).toMatchObject({ details: 'Level 3', party: { id: 'arcade', size: [2, 4] } });
    boGame.terminate();
    // getRelationships (with the activity's relationships.read token), patchUrlMappings, participants.
    await fa.evaluate(() => void (window as any).step('rest'));
    const rest = await until(fa, 'restDone');
    expect(rest.relationships).toContain(bo);
    expect(rest.patched).toBe('hello from the cdn');
    expect(rest.participants.sort()).toEqual([ada, bo].sort());
    // GET_CHANNEL_PERMISSIONS: the guild owner's permissions in the voice channel include USE_EMBEDDED_ACTIVITIES.
    expect(BigInt(rest.permissions) & (1n << 39n)).toBe(1n << 39n);
    const instance = await t.req('GET', `/applications/${t.app.id}/activity-instances/${r1.ready.instanceId}`, { token: t.app.botToken, bot: true });
    expect(instance.body.users.sort()).toEqual([ada, bo].sort());

    // Bad input on the real postMessage path (web app <- bridge frame <- activity), next to the
    // unit checks of activitySdkHost: frames forged by the web app's own window and by a popup on
    // another origin get no answer; junk from the activity is dropped; an unknown command and an
    // oversized frame get the documented error frames; the channel keeps working afterwards.
    await fa.evaluate(() => {
      const w = window as unknown as { replies: unknown[] };
      w.replies = [];
      window.addEventListener('message', (e) => void (e.source === window.parent && w.replies.push(e.data)));
    });
    const forged = (nonce: string) => [1, { cmd: 'GET_SKUS_EMBEDDED', nonce, args: {} }];
    await a.evaluate((frame) => window.postMessage(frame, '*'), forged('forged-self'));
    const [popup] = await Promise.all([ctxA.waitForEvent('page'), a.evaluate((url) => void window.open(url), `http://127.0.0.1:${port(cdn)}/`)]);
    await popup.waitForLoadState();
    await popup.evaluate((frame) => window.opener.postMessage(frame, '*'), forged('forged-popup'));
    await popup.close();
    await fa.evaluate(() => {
      for (const junk of ['text', null, 42, {}, [9, {}], [1, { cmd: 1, nonce: 'n' }]]) window.parent.postMessage(junk, '*');
      window.parent.postMessage([1, { cmd: 'NOT_A_COMMAND', nonce: 'bad-cmd', args: {} }], '*');
      window.parent.postMessage([1, { cmd: 'GET_SKUS_EMBEDDED', nonce: 'too-big', args: { blob: 'x'.repeat(70_000) } }], '*');
      window.parent.postMessage([1, { cmd: 'GET_SKUS_EMBEDDED', nonce: 'legit', args: {} }], '*');
    });
    const replies = async () => (await fa.evaluate(() => (window as unknown as { replies: [number, { nonce: string; evt: string | null; data: any }][] }).replies)).filter(([, f]) => f?.nonce);
    await expect.poll(async () => (await replies()).some(([, f]) => f.nonce === 'legit'), { timeout: 15_000 }).toBe(true);
    const byNonce = Object.fromEntries((await replies()).map(([, f]) => [f.nonce, f]));
    expect(Object.keys(byNonce)).not.toContain('forged-self');
    expect(Object.keys(byNonce)).not.toContain('forged-popup');
    expect(Object.keys(byNonce)).not.toContain('n');
    expect(byNonce['bad-cmd']).toMatchObject({ evt: 'ERROR', data: { code: 4002 } });
    expect(byNonce['too-big']).toMatchObject({ evt: 'ERROR', data: { code: 4000 } });
    expect(byNonce.legit!.evt).toBeNull();
    expect(byNonce.legit!.data.skus.map((x: { name: string }) => x.name)).toEqual(['Golden Hat']);
    await a.screenshot({ path: join(RESULTS, 'activity-desktop.png') });
    await b.screenshot({ path: join(RESULTS, 'activity-phone.png') });

    // The application's entry-point command (PRIMARY_ENTRY_POINT, handler PLATFORM_LAUNCH_ACTIVITY),
    // run by the second user in the text channel as the web app's command picker does: the
    // platform answers LAUNCH_ACTIVITY and the web app opens the activity there, a new instance.
    const firstParty = (await t.server.store.applications.firstParty()).id;
    const entry = await t.req('POST', `/applications/${t.app.id}/commands`, { token: t.app.botToken, bot: true, body: { name: 'launch', description: 'Launch the activity', type: 4, handler: 2 } });
    expect(entry.status).toBeLessThan(300);
    const boWeb = await t.server.store.tokens.issue(bo, firstParty, ['identify', 'guilds'], 3600);
    const invoked = await fetch(`${t.api}/interactions`, { method: 'POST', headers: { authorization: boWeb, 'content-type': 'application/json' }, body: JSON.stringify({ type: 2, application_id: t.app.id, channel_id: text, nonce: 'launch-1', data: { id: entry.body.id, name: 'launch', type: 4 } }) });
    expect(invoked.status, await invoked.clone().text()).toBeLessThan(300);
    await b.waitForURL((u) => u.searchParams.get('channel_id') === text);
    await b.waitForSelector(`.activity-page[data-instance-id]:not([data-instance-id="${r1.ready.instanceId}"])`);
    const textInstance = (await b.getAttribute('.activity-page', 'data-instance-id'))!;
    // Leaving an activity leaves its instance: in the app (the voice one), and by closing the tab (the text one, which ends).
    const usersOf = async (id: string) => (await t.req('GET', `/applications/${t.app.id}/activity-instances/${id}`, { token: t.app.botToken, bot: true })).body.users;
    await expect.poll(() => usersOf(r1.ready.instanceId)).toEqual([ada]);
    await b.close({ runBeforeUnload: true });
    await expect.poll(async () => (await t.req('GET', `/applications/${t.app.id}/activity-instances/${textInstance}`, { token: t.app.botToken, bot: true })).status).toBe(404);
    expect(errors).toEqual([]);
    await ctxA.close();
    await ctxB.close();
  }, 180_000);
});
