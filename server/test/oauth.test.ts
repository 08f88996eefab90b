// The OAuth2 provider end to end through its real pages and endpoints: code flow with PKCE,
// refresh, revocation, ID tokens and JWKS, client credentials, the device flow, scope rules and
// redirect rules, and the negative cases, each of which must answer the documented error and
// change nothing.
import { createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, keepWebhookEvents, RawGateway, startTestServer, type TestServer, webhookEventsOf } from './harness.ts';
import { decodeJwtPayload, oauthPost, PageSession, pkce, queryOf } from './oauthHelpers.ts';

let t: TestServer;
let alice: PageSession;
const REDIRECT = 'http://127.0.0.1/callback';

beforeAll(async () => {
  t = await startTestServer({ accounts: { deviceIntervalSeconds: 1 } });
  await keepWebhookEvents(t);
  await t.server.configureApplication(t.app.id, { redirectUris: [REDIRECT, 'https://game.example/cb', 'mygame:/authorize/callback'] });
  alice = new PageSession(t.server.url);
  await alice.signUp('alice', 'correct horse battery', 'Alice');
});
afterAll(async () => {
  await t.close();
  cleanupTempDirs();
});

function authorizeQuery(extra: Record<string, string> = {}): Record<string, string> {
  return { response_type: 'code', client_id: t.app.id, scope: 'openid sdk.social_layer', redirect_uri: REDIRECT, state: 'st-1', ...extra };
}

async function codeFor(extra: Record<string, string> = {}, session = alice): Promise<{ code: string; verifier: string }> {
  const p = pkce();
  const location = await session.consent(authorizeQuery({ code_challenge: p.challenge, code_challenge_method: 'S256', ...extra }));
  const q = queryOf(location);
  expect(q.get('state')).toBe(extra.state ?? 'st-1');
  return { code: q.get('code')!, verifier: p.verifier };
}

function exchange(code: string, verifier: string | undefined, extra: Record<string, string> = {}) {
  return oauthPost(t, '/oauth2/token', {
    grant_type: 'authorization_code',
    client_id: t.app.id,
    code,
    redirect_uri: REDIRECT,
    ...(verifier ? { code_verifier: verifier } : {}),
    ...extra,
  });
}

function events(type: string): Promise<any[]> {
  return webhookEventsOf(t, type);
}

describe('authorization code flow with PKCE', () => {
  it('consents on the page, exchanges the code, and signs an ID token with the nonce', async () => {
    const page = await alice.get(`/oauth2/authorize?${new URLSearchParams(authorizeQuery({ code_challenge: pkce().challenge, code_challenge_method: 'S256' }))}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Test Game');
    expect(page.text).toContain('sdk.social_layer');
    expect(page.text).toContain('Signed in as <strong>Alice</strong>');

    const { code, verifier } = await codeFor({ nonce: 'n-0S6_WzA2Mj' });
    const r = await exchange(code, verifier);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toMatchObject({ token_type: 'Bearer', expires_in: 604800, scope: 'openid sdk.social_layer' });
    expect(r.body.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(r.body.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const me = await t.req('GET', '/users/@me', { token: r.body.access_token });
    expect(me.body).toMatchObject({ username: 'alice', global_name: 'Alice', is_provisional: false, premium_type: 0 });

    // ID token: RS256 over our JWKS, issuer = this server, audience = the app, nonce echoed.
    const [h, p, s] = r.body.id_token.split('.');
    const header = JSON.parse(Buffer.from(h, 'base64url').toString());
    const jwks = await (await fetch(`${t.api}/oauth2/keys`)).json();
    const jwk = jwks.keys.find((k: any) => k.kid === header.kid);
    expect(header.alg).toBe('RS256');
    expect(verify('sha256', Buffer.from(`${h}.${p}`), createPublicKey({ key: jwk, format: 'jwk' }), Buffer.from(s, 'base64url'))).toBe(true);
    const claims = decodeJwtPayload(r.body.id_token);
    expect(claims).toMatchObject({ iss: t.server.url, aud: t.app.id, sub: me.body.id, nonce: 'n-0S6_WzA2Mj' });
    const discovery = await (await fetch(`${t.server.url}/.well-known/openid-configuration`)).json();
    expect(discovery).toMatchObject({ issuer: t.server.url, jwks_uri: `${t.api}/oauth2/keys`, code_challenge_methods_supported: ['S256'] });

    // The app can use the lobbies (sdk.social_layer expands to them) and was told of the install.
    const lobby = await t.req('PUT', '/lobbies', { token: r.body.access_token, body: { secret: 'oauth-room' } });
    expect(lobby.status).toBe(200);
    expect((await events('APPLICATION_AUTHORIZED')).some((e) => e.user.id === me.body.id && e.scopes.includes('sdk.social_layer'))).toBe(true);
  });

  it('also serves the token endpoint under /api/oauth2/token', async () => {
    const { code, verifier } = await codeFor();
    const res = await fetch(`${t.server.url}/api/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: t.app.id, code, code_verifier: verifier, redirect_uri: REDIRECT }).toString(),
    });
    expect(res.status).toBe(200);
  });

  it('refuses a wrong or missing verifier, and the code still works afterwards', async () => {
    const { code, verifier } = await codeFor();
    const wrong = await exchange(code, pkce().verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid "code_verifier" in request' });
    const missing = await exchange(code, undefined);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_grant');
    expect((await exchange(code, verifier)).status).toBe(200);
  });

  it('refuses a code used twice and revokes what the first use issued', async () => {
    const { code, verifier } = await codeFor();
    const first = await exchange(code, verifier);
    expect(first.status).toBe(200);
    const again = await exchange(code, verifier);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    expect((await t.req('GET', '/users/@me', { token: first.body.access_token })).status).toBe(401);
  });

  it('refuses an expired code', async () => {
    const { code, verifier } = await codeFor();
    await t.server.store.database.db.updateTable('oauth_codes').set({ expires_at: Date.now() - 1000 }).where('used_at', 'is', null).execute();
    const r = await exchange(code, verifier);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'invalid_grant', error_description: 'The code has expired' });
  });

  it('refuses a redirect_uri at the token endpoint that differs from the authorize request', async () => {
    const { code, verifier } = await codeFor();
    const r = await exchange(code, verifier, { redirect_uri: 'https://game.example/cb' });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_grant');
    expect((await exchange(code, verifier)).status).toBe(200);
  });

  it('never redirects to an unregistered URI: an error page instead', async () => {
    const r = await alice.get(`/oauth2/authorize?${new URLSearchParams(authorizeQuery({ redirect_uri: 'https://evil.example/cb' }))}`);
    expect(r.status).toBe(400);
    expect(r.location).toBeNull();
    expect(r.text).toContain('does not match');
    const prefix = await alice.get(`/oauth2/authorize?${new URLSearchParams(authorizeQuery({ redirect_uri: 'https://game.example/cb/../x' }))}`);
    expect(prefix.status).toBe(400);
  });

  it('sends scope and request errors back to the redirect URI with the state', async () => {
    const premium = await alice.get(`/oauth2/authorize?${new URLSearchParams(authorizeQuery({ scope: 'identify identify.premium' }))}`);
    expect(premium.status).toBe(302);
    expect(Object.fromEntries(queryOf(premium.location!))).toMatchObject({ error: 'invalid_scope', state: 'st-1' });
    const unknown = await alice.get(`/oauth2/authorize?${new URLSearchParams(authorizeQuery({ scope: 'openid admin' }))}`);
    expect(queryOf(unknown.location!).get('error')).toBe('invalid_scope');
    const plain = await alice.get(`/oauth2/authorize?${new URLSearchParams(authorizeQuery({ code_challenge: pkce().challenge, code_challenge_method: 'plain' }))}`);
    expect(queryOf(plain.location!).get('error')).toBe('invalid_request');
    const implicit = await alice.get(`/oauth2/authorize?${new URLSearchParams(authorizeQuery({ response_type: 'token' }))}`);
    expect(queryOf(implicit.location!).get('error')).toBe('unsupported_response_type');
  });

  it('reports the user cancelling as access_denied', async () => {
    const location = await alice.consent(authorizeQuery({ state: 'cancel-me' }), 'deny');
    expect(Object.fromEntries(queryOf(location))).toMatchObject({ error: 'access_denied', state: 'cancel-me' });
  });

  it('sends a signed-out browser to sign in first, then back to the request', async () => {
    const anon = new PageSession(t.server.url);
    const path = `/oauth2/authorize?${new URLSearchParams(authorizeQuery())}`;
    const r = await anon.get(path);
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/login?next=${encodeURIComponent(path)}`);
    const login = await anon.post('/login', { login: 'alice', password: 'correct horse battery', next: path });
    expect(login.location).toBe(path);
  });

  it('accepts the custom-scheme redirects: the default one, and a registered scheme', async () => {
    const def = `social-layer-${t.app.id}:/authorize/callback`;
    const loc = await alice.consent(authorizeQuery({ redirect_uri: def, code_challenge: pkce().challenge, code_challenge_method: 'S256' }));
    expect(loc.startsWith(`${def}?code=`)).toBe(true);
    const custom = await alice.consent(authorizeQuery({ redirect_uri: 'mygame:/authorize/callback' }));
    expect(custom.startsWith('mygame:/authorize/callback?code=')).toBe(true);
    const other = await alice.get(`/oauth2/authorize?${new URLSearchParams(authorizeQuery({ redirect_uri: 'othergame:/authorize/callback' }))}`);
    expect(other.status).toBe(400);
  });

  it('lets a loopback redirect use any port (RFC 8252)', async () => {
    const loc = await alice.consent(authorizeQuery({ redirect_uri: 'http://127.0.0.1:54321/callback' }));
    expect(loc.startsWith('http://127.0.0.1:54321/callback?code=')).toBe(true);
  });
});

describe('confidential clients, refresh and revocation', () => {
  it('authenticates with Basic or form secrets and refuses a wrong one', async () => {
    const location = await alice.consent(authorizeQuery());
    const code = queryOf(location).get('code')!;
    const wrong = await oauthPost(t, '/oauth2/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, { id: t.app.id, secret: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    expect(wrong.headers.get('www-authenticate')).toContain('Basic');
    // Without PKCE a code needs the client secret.
    const pub = await exchange(code, undefined);
    expect(pub.body).toEqual({ error: 'invalid_grant', error_description: 'Public clients must use PKCE' });
    const ok = await oauthPost(t, '/oauth2/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, { id: t.app.id, secret: t.app.clientSecret });
    expect(ok.status).toBe(200);
  });

  it('accepts only form bodies, and refuses repeated parameters', async () => {
    const json = await fetch(`${t.api}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'refresh_token' }) });
    expect(json.status).toBe(400);
    expect((await json.json()).error).toBe('invalid_request');
    const text = await fetch(`${t.api}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(text.status).toBe(400);
    expect((await text.json()).error).toBe('invalid_request');
    const dup = await fetch(`${t.api}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `client_id=${t.app.id}&grant_type=refresh_token&refresh_token=a&refresh_token=b`,
    });
    expect((await dup.json()).error).toBe('invalid_request');
    expect((await oauthPost(t, '/oauth2/token', { client_id: t.app.id, grant_type: 'password' })).body.error).toBe('unsupported_grant_type');
  });

  it('rotates refresh tokens: the old pair stops working', async () => {
    const { code, verifier } = await codeFor();
    const first = (await exchange(code, verifier)).body;
    const r = await oauthPost(t, '/oauth2/token', { grant_type: 'refresh_token', client_id: t.app.id, refresh_token: first.refresh_token });
    expect(r.status).toBe(200);
    expect(r.body.refresh_token).not.toBe(first.refresh_token);
    expect(r.body.scope).toBe('openid sdk.social_layer');
    expect((await t.req('GET', '/users/@me', { token: first.access_token })).status).toBe(401);
    expect((await t.req('GET', '/users/@me', { token: r.body.access_token })).status).toBe(200);
    const old = await oauthPost(t, '/oauth2/token', { grant_type: 'refresh_token', client_id: t.app.id, refresh_token: first.refresh_token });
    expect(old.status).toBe(400);
    expect(old.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid "refresh_token" in request' });
  });

  it('revokes the whole authorization: REST 401, the Gateway closes 4004, refresh gets invalid_grant, APPLICATION_DEAUTHORIZED recorded', async () => {
    const bob = new PageSession(t.server.url);
    await bob.signUp('bob');
    const { code, verifier } = await codeFor({}, bob);
    const tokens = (await exchange(code, verifier)).body;
    const me = await t.req('GET', '/users/@me', { token: tokens.access_token });
    const gw = await RawGateway.open(t.server);
    await gw.identify(tokens.access_token);

    const bad = await oauthPost(t, '/oauth2/token/revoke', { client_id: t.app.id, token: tokens.access_token, token_type_hint: 'id_token' });
    expect(bad.body.error).toBe('unsupported_token_type');
    expect((await t.req('GET', '/users/@me', { token: tokens.access_token })).status).toBe(200);

    const r = await oauthPost(t, '/oauth2/token/revoke', { client_id: t.app.id, token: tokens.access_token });
    expect(r.status).toBe(200);
    expect(await gw.closed()).toBe(4004);
    expect((await t.req('GET', '/users/@me', { token: tokens.access_token })).status).toBe(401);
    const refresh = await oauthPost(t, '/oauth2/token', { grant_type: 'refresh_token', client_id: t.app.id, refresh_token: tokens.refresh_token });
    expect(refresh.body.error).toBe('invalid_grant');
    expect((await events('APPLICATION_DEAUTHORIZED')).some((e) => e.user.id === me.body.id)).toBe(true);
    // Identify and Resume with the dead token fail too.
    const again = await RawGateway.open(t.server);
    again.send({ op: 2, d: { token: tokens.access_token, properties: { os: 'l', browser: 'b', device: 'd' } } });
    expect(await again.closed()).toBe(4004);
    // Unknown tokens revoke fine (RFC 7009).
    expect((await oauthPost(t, '/oauth2/token/revoke', { client_id: t.app.id, token: 'unknown' })).status).toBe(200);
  });

  it('treats an expired access token as no token on REST and the Gateway', async () => {
    const { code, verifier } = await codeFor();
    const tokens = (await exchange(code, verifier)).body;
    await t.server.store.database.db.updateTable('access_tokens').set({ expires_at: Date.now() - 1 }).execute();
    expect((await t.req('GET', '/users/@me', { token: tokens.access_token })).status).toBe(401);
    const gw = await RawGateway.open(t.server);
    gw.send({ op: 2, d: { token: tokens.access_token, properties: { os: 'l', browser: 'b', device: 'd' } } });
    expect(await gw.closed()).toBe(4004);
    // The refresh token still works: that is what it is for.
    const r = await oauthPost(t, '/oauth2/token', { grant_type: 'refresh_token', client_id: t.app.id, refresh_token: tokens.refresh_token });
    expect(r.status).toBe(200);
  });

  it('issues client_credentials tokens to confidential clients only, with the allowed scopes', async () => {
    const r = await oauthPost(t, '/oauth2/token', { grant_type: 'client_credentials', scope: 'identify applications.commands.update' }, { id: t.app.id, secret: t.app.clientSecret });
    expect(r.status).toBe(200);
    expect(r.body.refresh_token).toBeUndefined();
    const me = await t.req('GET', '/users/@me', { token: r.body.access_token });
    expect(me.body.bot).toBe(true);
    expect((await oauthPost(t, '/oauth2/token', { grant_type: 'client_credentials', client_id: t.app.id })).body.error).toBe('unauthorized_client');
    expect((await oauthPost(t, '/oauth2/token', { grant_type: 'client_credentials', scope: 'sdk.social_layer' }, { id: t.app.id, secret: t.app.clientSecret })).body.error).toBe('invalid_scope');
  });
});

describe('scope rules', () => {
  it('gives the real premium_type only with an approved identify.premium', async () => {
    const user = await t.req('GET', '/users/@me', { token: (await exchange(...Object.values(await codeFor()) as [string, string])).body.access_token });
    await t.server.store.database.db.updateTable('users').set({ premium_type: 2 }).where('id', '=', user.body.id).execute();
    await t.server.configureApplication(t.app.id, { approvedScopes: ['identify.premium'] });
    const { code, verifier } = await codeFor({ scope: 'identify identify.premium guilds' });
    const tokens = (await exchange(code, verifier)).body;
    expect((await t.req('GET', '/users/@me', { token: tokens.access_token })).body.premium_type).toBe(2);
    const without = await codeFor({ scope: 'identify' });
    const plain = (await exchange(without.code, without.verifier)).body;
    expect((await t.req('GET', '/users/@me', { token: plain.access_token })).body.premium_type).toBe(0);
    // guilds gates GET /users/@me/guilds.
    expect((await t.req('GET', '/users/@me/guilds', { token: tokens.access_token })).status).toBe(200);
    const noGuilds = await t.req('GET', '/users/@me/guilds', { token: plain.access_token });
    expect(noGuilds.status).toBe(403);
    expect(noGuilds.body.code).toBe(50026);
  });

  it('accepts application.commands (and the public spelling) and shows what sdk scopes expand to', async () => {
    const { code, verifier } = await codeFor({ scope: 'sdk.social_layer_presence application.commands applications.commands' });
    const tokens = (await exchange(code, verifier)).body;
    expect(tokens.scope).toBe('sdk.social_layer_presence application.commands applications.commands');
    const info = await t.req('GET', '/oauth2/@me', { token: tokens.access_token });
    expect(info.body.scopes).toEqual(expect.arrayContaining(['sdk.social_layer_presence', 'identify', 'relationships.read', 'activities.write', 'application.commands']));
    expect(info.body.scopes).not.toContain('lobbies.write');
    // Presence scopes do not reach the lobbies.
    expect((await t.req('PUT', '/lobbies', { token: tokens.access_token, body: { secret: 'x' } })).status).toBe(403);
  });
});

describe('device flow', () => {
  it('polls pending, then gets tokens after the user approves on /activate', async () => {
    const start = await oauthPost(t, '/oauth2/device/authorize', { client_id: t.app.id, scope: 'openid sdk.social_layer' });
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({ verification_uri: `${t.server.url}/activate`, expires_in: 300, interval: 1 });
    expect(start.body.user_code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    const poll = () => oauthPost(t, '/oauth2/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', client_id: t.app.id, device_code: start.body.device_code });
    expect((await poll()).body.error).toBe('authorization_pending');
    expect((await poll()).body.error).toBe('slow_down');

    const page = await alice.get(`/activate?user_code=${start.body.user_code}`);
    expect(page.text).toContain(start.body.user_code);
    const bad = await alice.post('/activate', { csrf: PageSession.csrf(page.text), user_code: 'BBBB-BBBB' });
    expect(bad.status).toBe(400);
    const consent = await alice.post('/activate', { csrf: PageSession.csrf(page.text), user_code: start.body.user_code.toLowerCase() });
    expect(consent.text).toContain('Test Game');
    const done = await alice.post('/activate/decision', { ...PageSession.hiddenFields(consent.text), decision: 'allow' });
    expect(done.text).toContain('Device connected');
    await new Promise((r) => setTimeout(r, 1100));
    const tokens = await poll();
    expect(tokens.status).toBe(200);
    expect(tokens.body.id_token).toBeDefined();
    expect((await t.req('GET', '/users/@me', { token: tokens.body.access_token })).body.username).toBe('alice');
    expect((await poll()).body.error).toBe('invalid_grant');
  });

  it('answers access_denied when the user cancels and expired_token when too late', async () => {
    const start = (await oauthPost(t, '/oauth2/device/authorize', { client_id: t.app.id, scope: 'identify' })).body;
    const page = await alice.get('/activate');
    const consent = await alice.post('/activate', { csrf: PageSession.csrf(page.text), user_code: start.user_code });
    await alice.post('/activate/decision', { ...PageSession.hiddenFields(consent.text), decision: 'deny' });
    const denied = await oauthPost(t, '/oauth2/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', client_id: t.app.id, device_code: start.device_code });
    expect(denied.body.error).toBe('access_denied');
    const late = (await oauthPost(t, '/oauth2/device/authorize', { client_id: t.app.id, scope: 'identify' })).body;
    await t.server.store.database.db.updateTable('device_codes').set({ expires_at: Date.now() - 1 }).where('status', '=', 'pending').execute();
    const expired = await oauthPost(t, '/oauth2/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', client_id: t.app.id, device_code: late.device_code });
    expect(expired.body.error).toBe('expired_token');
    expect((await oauthPost(t, '/oauth2/device/authorize', { client_id: t.app.id, scope: 'identify.premium.x' })).body.error).toBe('invalid_scope');
  });
});
