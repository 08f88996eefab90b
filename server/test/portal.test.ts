// The developer portal over HTTP: sign-in required, CSRF and Origin checks on every form,
// applications visible to their owner only, each section's form, secrets shown once, and bad
// input answered on the page with nothing written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretMatches } from '../src/auth/secrets.ts';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { PageSession } from './oauthHelpers.ts';

let t: TestServer;
let dev: TestServer;
const FAST = { accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } } };

beforeAll(async () => {
  t = await startTestServer(FAST);
  dev = await startTestServer({ ...FAST, dev: true });
});
afterAll(async () => {
  await t.close();
  await dev.close();
  cleanupTempDirs();
});

async function developer(s: TestServer, login: string): Promise<PageSession> {
  const session = new PageSession(s.server.url);
  await session.signUp(login);
  return session;
}

/** Creates an application through the portal's form; returns its ID, its secrets and a CSRF token. */
async function createApp(session: PageSession, name: string): Promise<{ id: string; csrf: string; clientSecret: string; botToken: string; html: string }> {
  const list = await session.get('/developers');
  const csrf = PageSession.csrf(list.text);
  const r = await session.submit('/developers/applications', { csrf, name });
  expect([r.postStatus, r.status]).toEqual([303, 200]);
  const pick = (id: string) => new RegExp(`<code class="copy" id="${id}">([^<]+)</code>`).exec(r.text)![1]!;
  return { id: pick('client-id'), csrf, clientSecret: pick('client-secret'), botToken: pick('bot-token'), html: r.text };
}

describe('developer portal pages', () => {
  it('asks for sign-in first, and comes back to the portal', async () => {
    const anon = new PageSession(t.server.url);
    const r = await anon.get('/developers');
    expect(r.status).toBe(303);
    expect(r.location).toBe('/login?next=%2Fdevelopers');
    expect((await anon.get('/developers/applications/123')).location).toBe('/login?next=%2Fdevelopers%2Fapplications%2F123');
    expect((await anon.post('/developers/applications', { name: 'Nope', csrf: 'x' })).status).toBe(303);
    expect(await t.server.store.applications.count()).toBe(1);
  });

  it('creates an application owned by the developer, in pre-approval, showing its secrets once', async () => {
    const ada = await developer(t, 'portal_ada');
    const app = await createApp(ada, 'Ada <script>alert(1)</script> Game');
    expect(app.html).not.toContain('<script>alert(1)</script>');
    expect(app.html).toContain('Ada &lt;script&gt;alert(1)&lt;/script&gt; Game');
    const row = (await t.server.store.applications.get(app.id))!;
    expect(row.approval).toBe('pre_approval');
    expect(secretMatches(app.clientSecret, row.client_secret_hash)).toBe(true);
    expect(secretMatches(app.botToken, row.bot_token_hash)).toBe(true);
    const page = await ada.get(`/developers/applications/${app.id}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(app.clientSecret);
    expect(page.text).not.toContain(app.botToken);
    const list = await ada.get('/developers');
    expect(list.text).toContain(`data-application-id="${app.id}"`);
    // The bot token works at once.
    expect((await t.req('GET', '/applications/@me', { token: app.botToken, bot: true })).body).toMatchObject({ id: app.id, social_sdk: { enabled: false, approval: 'pre_approval' } });
  });

  it('refuses forms without the session\'s CSRF token or from another origin, writing nothing', async () => {
    const bea = await developer(t, 'portal_bea');
    const app = await createApp(bea, 'Bea Game');
    const before = (await t.server.store.applications.listByOwner((await t.server.store.applications.get(app.id))!.owner_id!)).length;
    expect((await bea.post('/developers/applications', { name: 'No CSRF' })).status).toBe(403);
    expect((await bea.post('/developers/applications', { name: 'Wrong CSRF', csrf: 'x'.repeat(43) })).status).toBe(403);
    const crossSite = await bea.request('POST', '/developers/applications', { name: 'Cross site', csrf: app.csrf }, { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    const owner = (await t.server.store.applications.get(app.id))!.owner_id!;
    expect(await t.server.store.applications.listByOwner(owner)).toHaveLength(before);
    const rename = await bea.request('POST', `/developers/applications/${app.id}/general`, { csrf: app.csrf, name: 'Hijacked', description: '' }, { origin: 'https://evil.example' });
    expect(rename.status).toBe(403);
    expect((await t.server.store.applications.get(app.id))!.name).toBe('Bea Game');
  });

  it('shows and edits an application only for its owner', async () => {
    const cy = await developer(t, 'portal_cy');
    const dee = await developer(t, 'portal_dee');
    const app = await createApp(cy, 'Cy Game');
    const deeCsrf = PageSession.csrf((await dee.get('/developers')).text);
    expect((await dee.get(`/developers/applications/${app.id}`)).status).toBe(404);
    expect((await dee.post(`/developers/applications/${app.id}/general`, { csrf: deeCsrf, name: 'Taken over', description: '' })).status).toBe(404);
    expect((await dee.post(`/developers/applications/${app.id}/bot`, { csrf: deeCsrf, action: 'reset-token' })).status).toBe(404);
    expect((await dee.get(`/developers/applications/${t.app.id}`)).status).toBe(404);
    expect((await dee.get('/developers/applications/not-a-number')).status).toBe(404);
    expect((await cy.post(`/developers/applications/${app.id}/no-such-section`, { csrf: app.csrf })).status).toBe(404);
    expect((await t.server.store.applications.get(app.id))!.name).toBe('Cy Game');
  });

  it('edits general information, redirect URIs, the client type, flags and installation', async () => {
    const eve = await developer(t, 'portal_eve');
    const app = await createApp(eve, 'Eve Game');
    const post = (section: string, form: Record<string, string>) => eve.post(`/developers/applications/${app.id}/${section}`, { csrf: app.csrf, ...form });
    const get = async () => (await t.req('GET', '/applications/@me', { token: app.botToken, bot: true })).body;

    expect((await post('general', { name: 'Eve Quest', description: 'Quests for Eve' })).status).toBe(303);
    expect(await get()).toMatchObject({ name: 'Eve Quest', description: 'Quests for Eve' });

    const added = await post('oauth2', { action: 'add-redirect', redirect_uri: 'https://eve.example/callback' });
    expect(added.status).toBe(303);
    expect(added.location).toBe(`/developers/applications/${app.id}?saved=oauth2#oauth2`);
    await post('oauth2', { action: 'add-redirect', redirect_uri: 'http://127.0.0.1/callback' });
    expect((await get()).redirect_uris).toEqual(['http://127.0.0.1/callback', 'https://eve.example/callback']);
    // Production refuses plain http off loopback: the page says why, and nothing changes.
    const refused = await post('oauth2', { action: 'add-redirect', redirect_uri: 'http://eve.example/callback' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('development mode');
    expect((await get()).redirect_uris).toHaveLength(2);
    await post('oauth2', { action: 'remove-redirect', redirect_uri: 'https://eve.example/callback' });
    expect((await get()).redirect_uris).toEqual(['http://127.0.0.1/callback']);

    await post('oauth2', { action: 'client-type' });
    expect((await get()).public_client).toBe(false);
    await post('oauth2', { action: 'client-type', public_client: '1' });
    expect((await get()).public_client).toBe(true);

    await post('bot', { action: 'save-flags', flag_19: '1', flag_13: '1' });
    expect(await get()).toMatchObject({ flags: (1 << 19) | (1 << 13), flags_new: String((1 << 19) | (1 << 13)) });
    await post('bot', { action: 'save-flags', flag_13: '1' });
    expect((await get()).flags).toBe(1 << 13);

    await post('install', { type_0: '1', scopes_0: 'bot applications.commands', permissions_0: '2048', type_1: '1', scopes_1: 'applications.commands' });
    expect((await get()).integration_types_config).toEqual({
      '0': { oauth2_install_params: { scopes: ['bot', 'applications.commands'], permissions: '2048' } },
      '1': { oauth2_install_params: { scopes: ['applications.commands'], permissions: '0' } },
    });
    const badInstall = await post('install', { type_0: '1', scopes_0: 'bot made.up', permissions_0: 'lots' });
    expect(badInstall.status).toBe(400);
    expect(badInstall.text).toContain('Unknown scope: made.up');
    expect(badInstall.text).toContain('is not snowflake');
    expect((await get()).integration_types_config['0'].oauth2_install_params.permissions).toBe('2048');

    const badName = await post('general', { name: 'x', description: '' });
    expect(badName.status).toBe(400);
    expect(badName.text).toContain('between 2 and 100');
    expect((await get()).name).toBe('Eve Quest');
  });

  it('accepts http redirect URIs in development mode', async () => {
    const fay = await developer(dev, 'portal_fay');
    const app = await createApp(fay, 'Fay Game');
    const r = await fay.post(`/developers/applications/${app.id}/oauth2`, { csrf: app.csrf, action: 'add-redirect', redirect_uri: 'http://fay.test:5173/callback' });
    expect(r.status).toBe(303);
    expect(await dev.server.store.oauth.redirectUris(app.id)).toEqual(['http://fay.test:5173/callback']);
  });

  it('resets the client secret and the bot token, showing each once; the old ones stop working', async () => {
    const gus = await developer(t, 'portal_gus');
    const app = await createApp(gus, 'Gus Game');
    const secret = await gus.submit(`/developers/applications/${app.id}/oauth2`, { csrf: app.csrf, action: 'reset-secret' });
    expect([secret.postStatus, secret.status]).toEqual([303, 200]);
    expect(secret.text).toContain('New client secret');
    const newSecret = /<code class="copy" id="new-secret">([^<]+)<\/code>/.exec(secret.text)![1]!;
    const row = (await t.server.store.applications.get(app.id))!;
    expect(secretMatches(newSecret, row.client_secret_hash)).toBe(true);
    expect(secretMatches(app.clientSecret, row.client_secret_hash)).toBe(false);
    expect((await gus.get(`/developers/applications/${app.id}`)).text).not.toContain(newSecret);

    const token = await gus.submit(`/developers/applications/${app.id}/bot`, { csrf: app.csrf, action: 'reset-token' });
    expect([token.postStatus, token.status]).toEqual([303, 200]);
    expect((await gus.get(`/developers/applications/${app.id}`)).text).not.toContain('id="new-secret"');
    const newToken = /<code class="copy" id="new-secret">([^<]+)<\/code>/.exec(token.text)![1]!;
    expect((await t.req('GET', '/applications/@me', { token: app.botToken, bot: true })).status).toBe(401);
    expect((await t.req('GET', '/applications/@me', { token: newToken, bot: true })).status).toBe(200);
  });

  it('enables the social SDK (then shows how to install it), requests production access, and shows the approval', async () => {
    const hal = await developer(t, 'portal_hal');
    const app = await createApp(hal, 'Hal Game');
    expect(app.html).not.toContain('install-snippet');
    const early = await hal.post(`/developers/applications/${app.id}/social-sdk`, { csrf: app.csrf, action: 'request-approval' });
    expect(early.status).toBe(400);
    expect(early.text).toContain('Enable the social SDK first');
    await hal.post(`/developers/applications/${app.id}/social-sdk`, { csrf: app.csrf, action: 'enable' });
    const page = (await hal.get(`/developers/applications/${app.id}`)).text;
    expect(page).toContain('npm install @social-layer/client');
    expect(page).toContain(`applicationId: '${app.id}'`);
    expect(page).toContain('Request production access');
    await hal.post(`/developers/applications/${app.id}/social-sdk`, { csrf: app.csrf, action: 'request-approval' });
    expect((await t.req('GET', '/applications/@me', { token: app.botToken, bot: true })).body.social_sdk).toEqual({ enabled: true, approval: 'requested' });
    expect((await hal.get(`/developers/applications/${app.id}`)).text).toContain('Production access requested');
    await t.server.applications.approve(app.id);
    const approved = (await hal.get(`/developers/applications/${app.id}`)).text;
    expect(approved).toContain('Approved: production budgets apply.');
    expect(approved).not.toContain('id="request-approval"');
  });

  it('uploads an icon as a file (checked by its bytes and size), and removes it', async () => {
    const jo = await developer(t, 'portal_jo');
    const kim = await developer(t, 'portal_kim');
    const app = await createApp(jo, 'Jo Game');
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    const upload = (who: PageSession, bytes: Buffer, csrf: string | undefined, type = 'image/png', origin = t.server.url) => {
      const form = new FormData();
      if (csrf !== undefined) form.append('csrf', csrf);
      form.append('icon', new Blob([new Uint8Array(bytes)], { type }), 'icon.png');
      return fetch(`${t.server.url}/developers/applications/${app.id}/icon`, { method: 'POST', body: form, redirect: 'manual', headers: { cookie: `sl_session=${who.cookieValue}`, origin } });
    };
    const icon = async () => (await t.req('GET', '/applications/@me', { token: app.botToken, bot: true })).body.icon;

    expect((await upload(jo, png, undefined)).status).toBe(403);
    expect((await upload(jo, png, app.csrf, 'image/png', 'https://evil.example')).status).toBe(403);
    expect((await upload(kim, png, PageSession.csrf((await kim.get('/developers')).text))).status).toBe(404);
    const svg = await upload(jo, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'), app.csrf, 'image/png');
    expect(svg.status).toBe(400);
    expect(await svg.text()).toContain('not a PNG, JPEG, GIF or WebP image');
    const big = await upload(jo, Buffer.concat([png, Buffer.alloc(41 * 1024)]), app.csrf);
    expect(big.status).toBe(400);
    expect(await big.text()).toContain('larger than 40 KiB');
    expect(await icon()).toBeNull();

    const ok = await upload(jo, png, app.csrf);
    expect(ok.status).toBe(303);
    const hash = await icon();
    expect(hash).toMatch(/^[0-9a-f]{32}$/);
    expect((await jo.get(`/developers/applications/${app.id}`)).text).toContain(`/app-icons/${app.id}/${hash}.png`);
    await jo.post(`/developers/applications/${app.id}/general`, { csrf: app.csrf, name: 'Jo Game', description: '', remove_icon: '1' });
    expect(await icon()).toBeNull();
  });

  it('answers a create with 303 and shows its secrets once, on the first GET: a replayed GET creates and shows nothing', async () => {
    const kim = await developer(t, 'portal_prg');
    const csrf = PageSession.csrf((await kim.get('/developers')).text);
    const posted = await kim.post('/developers/applications', { csrf, name: 'Kim Game' });
    expect(posted.status).toBe(303);
    const appId = posted.location!.split('/').pop()!;
    expect(posted.location).toBe(`/developers/applications/${appId}`);
    // The secrets are in neither the URL nor the redirect's body.
    expect(posted.text).not.toMatch(/[A-Za-z0-9_-]{43}/);
    const flash = kim.cookies.get('sl_secret_flash')!;
    expect(flash).toBeTruthy();

    // The same developer signed in elsewhere (another session) cannot open it: it is sealed
    // with the session it was made for.
    const elsewhere = new PageSession(t.server.url);
    expect((await elsewhere.post('/login', { login: 'portal_prg', password: 'correct horse battery' })).status).toBe(303);
    elsewhere.cookies.set('sl_secret_flash', flash);
    const there = await elsewhere.get(posted.location!);
    expect([there.status, there.text.includes('id="created-secrets"')]).toEqual([200, false]);

    const first = await kim.get(posted.location!);
    const secret = /<code class="copy" id="client-secret">([^<]+)<\/code>/.exec(first.text)![1]!;
    expect(secretMatches(secret, (await t.server.store.applications.get(appId))!.client_secret_hash)).toBe(true);
    expect(first.text).toContain('id="bot-token"');
    expect(flash).not.toContain(secret);
    expect(kim.cookies.has('sl_secret_flash')).toBe(false);

    const before = (await kim.get('/developers')).text.match(/data-application-id=/g)!.length;
    const again = await kim.get(posted.location!);
    expect(again.status).toBe(200);
    expect(again.text).not.toContain('id="created-secrets"');
    expect(again.text).not.toContain(secret);
    expect((await kim.get('/developers')).text.match(/data-application-id=/g)!.length).toBe(before);
    expect(before).toBe(1);
  });

  it('gives every portal route a rate budget', async () => {
    const ivy = await developer(t, 'portal_ivy');
    const list = await fetch(`${t.server.url}/developers`, { headers: { cookie: `sl_session=${ivy.cookieValue}` } });
    expect(list.headers.get('x-ratelimit-limit')).toBeTruthy();
    const css = await fetch(`${t.server.url}/assets/developers.css`);
    expect(css.headers.get('content-type')).toContain('text/css');
    expect(css.headers.get('x-ratelimit-limit')).toBeTruthy();
    const post = await fetch(`${t.server.url}/developers/applications`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `sl_session=${ivy.cookieValue}`, origin: t.server.url }, body: 'name=x', redirect: 'manual' });
    expect(post.status).toBe(403);
    expect(post.headers.get('x-ratelimit-limit')).toBeTruthy();
  });
});
