// Full accounts and what moves or ends their access: the sign-up/sign-in/account pages,
// merging a provisional account into a full one (friends, DMs and lobbies carried over),
// unmerge, unlinking and removing an app from the account page, bans with their restricted
// provisional account and 530017, and publisher-level child tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, keepWebhookEvents, RawGateway, startTestServer, type TestServer, webhookEventsOf } from './harness.ts';
import { linkAccount, oauthPost, PageSession } from './oauthHelpers.ts';

let t: TestServer;
const REDIRECT = 'http://127.0.0.1/callback';

beforeAll(async () => {
  t = await startTestServer();
  await keepWebhookEvents(t);
  await t.server.configureApplication(t.app.id, { redirectUris: [REDIRECT] });
});
afterAll(async () => {
  await t.close();
  cleanupTempDirs();
});

function events(type: string, appId = t.app.id): Promise<any[]> {
  return webhookEventsOf(t, type, appId);
}

/** Authorizes `session`'s user for the app and exchanges the code, optionally merging a provisional identity. */
function link(session: PageSession, merge?: Record<string, string>): Promise<{ status: number; body: any }> {
  return linkAccount(t, session, REDIRECT, merge);
}

async function provisional(deviceId: string): Promise<{ status: number; body: any }> {
  return t.req('POST', '/partner-sdk/token', { body: { client_id: t.app.id, external_auth_type: 'DEVICE_ID', external_auth_token: deviceId } });
}

async function me(token: string): Promise<any> {
  return (await t.req('GET', '/users/@me', { token })).body;
}

describe('sign-up and sign-in pages', () => {
  it('greets a first visit as well as a return: no "Welcome back" for a player sent to sign in from an invite, and sign-up keeps where they were going', async () => {
    const page = await new PageSession(t.server.url).get(`/login?next=${encodeURIComponent('/app/invite/abc')}`);
    expect(page.text).toContain('<h1>Sign in to Social Layer</h1>');
    expect(page.text).not.toContain('Welcome back');
    expect(page.text).toContain(`href="/signup?next=${encodeURIComponent('/app/invite/abc')}"`);
  });

  it('creates accounts with scrypt hashes and refuses bad input without changing anything', async () => {
    const s = new PageSession(t.server.url);
    expect((await s.get('/signup')).text).toContain('Create your account');
    expect((await s.post('/signup', { login: 'x', password: 'long enough pw' })).status).toBe(400);
    expect((await s.post('/signup', { login: 'carol', password: 'short' })).status).toBe(400);
    await s.signUp('carol', 'carol password 1', 'Carol');
    const taken = await new PageSession(t.server.url).post('/signup', { login: 'Carol', password: 'another password' });
    expect(taken.status).toBe(409);
    const account = await t.server.store.accounts.findByLogin('carol');
    expect(account!.password_hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect((await s.get('/account')).text).toContain('No game is connected');

    const other = new PageSession(t.server.url);
    const wrong = await other.post('/login', { login: 'carol', password: 'nope nope nope' });
    const unknown = await other.post('/login', { login: 'nobody', password: 'nope nope nope' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.text).toContain('Wrong username or password.');
    expect(unknown.text).toContain('Wrong username or password.');
    expect((await other.get('/account')).status).toBe(303);
    const ok = await other.post('/login', { login: 'CAROL', password: 'carol password 1', next: '//evil.example/' });
    expect(ok.location).toBe('/account');
  });

  it('refuses account changes without the CSRF token or from another origin', async () => {
    const s = new PageSession(t.server.url);
    await s.signUp('dave');
    expect((await link(s)).status).toBe(200);
    const page = await s.get('/account');
    expect(page.text).toContain('Test Game');
    const noCsrf = await s.post(`/account/applications/${t.app.id}/remove`, { csrf: 'wrong' });
    expect(noCsrf.status).toBe(403);
    const res = await s.request('POST', `/account/applications/${t.app.id}/remove`, { csrf: PageSession.csrf(page.text) }, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect((await s.get('/account')).text).toContain('Test Game');
  });
});

describe('merging a provisional account into a full account', () => {
  it('carries friends, direct messages and lobby memberships over, and ends the guest sessions', async () => {
    const guestDevice = 'guest-device-0123456789';
    const guest = (await provisional(guestDevice)).body.access_token;
    const guestUser = await me(guest);
    const friend = await t.guest('Friend');
    // Game friends, a DM and a lobby, all as the guest.
    expect((await t.req('PUT', `/users/@me/game-relationships/${friend.userId}`, { token: guest, body: {} })).status).toBe(204);
    expect((await t.req('PUT', `/users/@me/game-relationships/${guestUser.id}`, { token: friend.token, body: {} })).status).toBe(204);
    expect((await t.req('POST', `/users/${friend.userId}/messages`, { token: guest, body: { content: 'hi from the guest' } })).status).toBe(200);
    const lobby = (await t.req('PUT', '/lobbies', { token: guest, body: { secret: 'merge-room' } })).body;
    const gw = await RawGateway.open(t.server);
    await gw.identify(guest);

    const erin = new PageSession(t.server.url);
    await erin.signUp('erin', 'erin password 1', 'Erin');
    const r = await link(erin, { external_auth_type: 'DEVICE_ID', external_auth_token: guestDevice });
    expect(r.status).toBe(200);
    const full = await me(r.body.access_token);
    expect(full).toMatchObject({ username: 'erin', is_provisional: false });

    expect(await gw.closed()).toBe(4004);
    expect((await t.req('GET', '/users/@me', { token: guest })).status).toBe(401);
    expect(await t.server.store.users.get(guestUser.id)).toBeUndefined();
    const friends = (await t.req('GET', '/users/@me/relationships', { token: r.body.access_token })).body;
    expect(JSON.stringify(friends)).toContain(friend.userId);
    const dms = (await t.req('GET', `/users/${friend.userId}/messages`, { token: r.body.access_token })).body;
    expect(dms.map((m: any) => [m.content, m.author.id])).toEqual([['hi from the guest', full.id]]);
    const members = (await t.req('GET', `/lobbies/${lobby.id}`, { token: r.body.access_token })).body.members.map((m: any) => m.id);
    expect(members).toEqual([full.id]);
    // The identity now belongs to the full account: the provisional path says use OAuth2.
    const again = await provisional(guestDevice);
    expect(again.status).toBe(400);
    expect(again.body.code).toBe(530010);
  });

  it('unmerges: the identity leaves for a new provisional account and the full tokens die', async () => {
    const device = 'unmerge-device-0123456789';
    await provisional(device);
    const s = new PageSession(t.server.url);
    await s.signUp('frank');
    const tokens = (await link(s, { external_auth_type: 'DEVICE_ID', external_auth_token: device })).body;
    const full = await me(tokens.access_token);
    const r = await t.req('POST', '/partner-sdk/provisional-accounts/unmerge', { body: { client_id: t.app.id, external_auth_type: 'DEVICE_ID', external_auth_token: device } });
    expect(r.status).toBe(204);
    expect((await t.req('GET', '/users/@me', { token: tokens.access_token })).status).toBe(401);
    const guest = await provisional(device);
    expect(guest.status).toBe(200);
    const guestUser = await me(guest.body.access_token);
    expect(guestUser.is_provisional).toBe(true);
    expect(guestUser.id).not.toBe(full.id);
    expect((await events('APPLICATION_DEAUTHORIZED')).some((e) => e.user.id === full.id)).toBe(true);
    // A second unmerge has nothing to move.
    const twice = await t.req('POST', '/partner-sdk/provisional-accounts/unmerge', { body: { client_id: t.app.id, external_auth_type: 'DEVICE_ID', external_auth_token: device } });
    expect(twice.body.code).toBe(530010);
  });

  it('merges and unmerges bot-issued provisional accounts', async () => {
    const bot = await t.req('POST', '/partner-sdk/token/bot', { token: t.app.botToken, bot: true, body: { external_user_id: 'backend-player-7' } });
    const s = new PageSession(t.server.url);
    await s.signUp('gina');
    const merged = await link(s, { external_auth_type: 'DISCORD_BOT_ISSUED_ACCESS_TOKEN', external_auth_token: bot.body.access_token });
    expect(merged.status).toBe(200);
    const linked = await t.req('POST', '/partner-sdk/token/bot', { token: t.app.botToken, bot: true, body: { external_user_id: 'backend-player-7' } });
    expect(linked.body.code).toBe(530010);
    const r = await t.req('POST', '/partner-sdk/provisional-accounts/unmerge/bot', { token: t.app.botToken, bot: true, body: { external_user_id: 'backend-player-7' } });
    expect(r.status).toBe(204);
    expect((await t.req('GET', '/users/@me', { token: merged.body.access_token })).status).toBe(401);
    const fresh = await t.req('POST', '/partner-sdk/token/bot', { token: t.app.botToken, bot: true, body: { external_user_id: 'backend-player-7' } });
    expect((await me(fresh.body.access_token)).is_provisional).toBe(true);
  });
});

describe('unlinking and removing from the account page', () => {
  it('unlink: revokes at once, closes the Gateway with 4004, records the event, and leaves the game a guest', async () => {
    const device = 'unlink-device-0123456789';
    await provisional(device);
    const s = new PageSession(t.server.url);
    await s.signUp('hank');
    const tokens = (await link(s, { external_auth_type: 'DEVICE_ID', external_auth_token: device })).body;
    const full = await me(tokens.access_token);
    const gw = await RawGateway.open(t.server);
    await gw.identify(tokens.access_token);
    const page = await s.get('/account');
    const r = await s.post(`/account/applications/${t.app.id}/unlink`, { csrf: PageSession.csrf(page.text) });
    expect(r.location).toBe('/account?done=unlinked');
    expect(await gw.closed()).toBe(4004);
    expect((await t.req('GET', '/users/@me', { token: tokens.access_token })).status).toBe(401);
    const refresh = await oauthPost(t, '/oauth2/token', { grant_type: 'refresh_token', client_id: t.app.id, refresh_token: tokens.refresh_token });
    expect(refresh.body.error).toBe('invalid_grant');
    expect((await events('APPLICATION_DEAUTHORIZED')).some((e) => e.user.id === full.id)).toBe(true);
    expect((await s.get('/account')).text).toContain('No game is connected');
    const guest = await provisional(device);
    expect(guest.status).toBe(200);
    expect((await me(guest.body.access_token)).is_provisional).toBe(true);
  });

  it('remove app: revokes and records the event but keeps the link (the game must use OAuth2 again)', async () => {
    const device = 'remove-device-0123456789';
    await provisional(device);
    const s = new PageSession(t.server.url);
    await s.signUp('ivan');
    const tokens = (await link(s, { external_auth_type: 'DEVICE_ID', external_auth_token: device })).body;
    const page = await s.get('/account');
    await s.post(`/account/applications/${t.app.id}/remove`, { csrf: PageSession.csrf(page.text) });
    expect((await t.req('GET', '/users/@me', { token: tokens.access_token })).status).toBe(401);
    expect((await provisional(device)).body.code).toBe(530010);
  });
});

describe('bans', () => {
  it('deletes tokens at once, creates the restricted provisional account, and answers 530017 to merges until the ban lifts', async () => {
    const device = 'banned-device-0123456789';
    await provisional(device);
    const s = new PageSession(t.server.url);
    await s.signUp('mallory', 'mallory password');
    const tokens = (await link(s, { external_auth_type: 'DEVICE_ID', external_auth_token: device })).body;
    const full = await me(tokens.access_token);
    const gw = await RawGateway.open(t.server);
    await gw.identify(tokens.access_token);

    await t.server.accounts.ban(full.id);
    expect(await gw.closed()).toBe(4004);
    expect((await t.req('GET', '/users/@me', { token: tokens.access_token })).status).toBe(401);
    expect((await oauthPost(t, '/oauth2/token', { grant_type: 'refresh_token', client_id: t.app.id, refresh_token: tokens.refresh_token })).body.error).toBe('invalid_grant');
    expect((await events('APPLICATION_DEAUTHORIZED')).some((e) => e.user.id === full.id)).toBe(true);
    expect((await s.get('/account')).status).toBe(303);
    expect((await new PageSession(t.server.url).post('/login', { login: 'mallory', password: 'mallory password' })).status).toBe(403);

    // The game still recognises the player: a restricted provisional account carries the identity.
    const guest = await provisional(device);
    expect(guest.status).toBe(200);
    const restricted = await t.server.store.users.get((await me(guest.body.access_token)).id);
    expect(restricted).toMatchObject({ is_provisional: 1, restricted_from: full.id });

    const other = new PageSession(t.server.url);
    await other.signUp('nora');
    const refused = await link(other, { external_auth_type: 'DEVICE_ID', external_auth_token: device });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'invalid_grant', code: 530017 });
    // Nothing changed: the restricted account still answers for the identity.
    expect((await provisional(device)).status).toBe(200);

    await t.server.accounts.unban(full.id);
    expect((await link(other, { external_auth_type: 'DEVICE_ID', external_auth_token: device })).status).toBe(200);
  });
});

describe('publisher-level linking (child applications)', () => {
  it('exchanges a parent token for a child token, publicly or server to server', async () => {
    const child = await t.server.createApplication({ name: 'Child Game' });
    await keepWebhookEvents(t, child.id);
    const stranger = await t.server.createApplication({ name: 'Other Game' });
    await t.server.configureApplication(child.id, { parentId: t.app.id });
    const s = new PageSession(t.server.url);
    await s.signUp('olga');
    const parent = (await link(s)).body;
    const exchange = (clientId: string, subject: string, basic?: { id: string; secret: string }) =>
      oauthPost(t, '/oauth2/token', { grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token: subject, subject_token_type: 'urn:ietf:params:oauth:token-type:access_token', ...(basic ? {} : { client_id: clientId }) }, basic);

    const pub = await exchange(child.id, parent.access_token);
    expect(pub.status).toBe(200);
    expect(pub.body.refresh_token).toBeUndefined();
    expect(pub.body.scope).toBe('openid sdk.social_layer');
    const info = await t.req('GET', '/oauth2/@me', { token: pub.body.access_token });
    expect(info.body.application.id).toBe(child.id);
    const confidential = await exchange(child.id, parent.access_token, { id: child.id, secret: child.clientSecret });
    expect(confidential.status).toBe(200);

    expect((await exchange(stranger.id, parent.access_token)).body.error).toBe('unauthorized_client');
    expect((await exchange(child.id, pub.body.access_token)).body.error).toBe('invalid_grant');
    expect((await exchange(child.id, 'not-a-token')).body.error).toBe('invalid_grant');

    // Removing the parent app takes the children's tokens with it.
    await t.server.accounts.deauthorize(t.app.id, (await me(parent.access_token)).id);
    expect((await t.req('GET', '/users/@me', { token: pub.body.access_token })).status).toBe(401);
    expect((await events('APPLICATION_DEAUTHORIZED', child.id)).length).toBeGreaterThan(0);
  });
});
