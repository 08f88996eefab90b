// Issue 5's "no token in any log" check over the whole accounts and OAuth2 slice: every flow
// runs once end to end through the real endpoints, pages and Gateway, with the server logging at
// debug into a capturing sink and the real client (bindings/client, the test's only use of it
// from the server's tests) at Verbose. Console output and process stdout/stderr are captured
// too, so a library printing on its own (fastify, oidc-provider, the database drivers) counts.
// Every credential the suite handles is collected; the last test asserts none appears anywhere.
import { randomBytes } from 'node:crypto';
import {
  AuthenticationExternalAuthType,
  AuthorizationArgs,
  AuthorizationTokenType,
  Client,
  ClientResultError,
  DeviceAuthorizationArgs,
  ErrorType,
  LoggingSeverity,
} from '@social-layer/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRs256 } from '../src/oauth2/jwt.ts';
import { redact } from '../src/log/Logger.ts';
import { cleanupTempDirs, RawGateway, startTestServer, type TestServer } from './harness.ts';
import { linkAccount, oauthPost, PageSession, pkce, queryOf } from './oauthHelpers.ts';
import { OIDC_AUDIENCE, OIDC_KID, startOidcIssuer, type OidcIssuer } from './oidcIssuer.ts';

const REDIRECT = 'http://127.0.0.1/callback';
const serverLog: string[] = [];
const clientLog: string[] = [];
/** console.* and process stdout/stderr while the suite runs. */
const otherOutput: string[] = [];
/** Every credential the suite saw; none may appear in a log line. */
const secrets = new Set<string>();
const clients: Client[] = [];
const restore: (() => void)[] = [];

let t: TestServer;
let oidc: OidcIssuer;
let child: { id: string; clientSecret: string; botToken: string };

const SECRET_FIELDS = new Set([
  'access_token', 'refresh_token', 'id_token', 'device_code', 'user_code', 'client_secret', 'code', 'code_verifier',
  'accessToken', 'refreshToken', 'idToken', 'verifier', 'clientSecret', 'botToken',
]);

/** Collects the credential fields of a response (OAuth2 wire names and the client's camelCase). */
function keep<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (typeof v === 'string' && v && SECRET_FIELDS.has(k)) secrets.add(v);
      else if (v && typeof v === 'object' && k === 'body') keep(v);
    }
  }
  return value;
}

function secret(value: string): string {
  secrets.add(value);
  return value;
}

const newPassword = () => secret(`pw ${randomBytes(12).toString('base64url')}`);
const newDeviceId = () => secret(randomBytes(16).toString('hex'));

async function signedUp(login: string): Promise<PageSession> {
  const s = new PageSession(t.server.url);
  await s.signUp(login, newPassword());
  secret(s.cookieValue!);
  return s;
}

async function csrfOf(s: PageSession, path = '/account'): Promise<string> {
  return secret(PageSession.csrf((await s.get(path)).text));
}

function newClient(): Client {
  const c = new Client({ apiBase: t.server.url, applicationId: t.app.id, reconnectBaseDelayMs: 50 });
  c.addLogCallback((message) => clientLog.push(message), LoggingSeverity.Verbose);
  clients.push(c);
  return c;
}

function capture<K extends 'log' | 'info' | 'warn' | 'error' | 'debug'>(method: K): void {
  const original = console[method];
  console[method] = ((...args: unknown[]) => void otherOutput.push(args.map(String).join(' '))) as (typeof console)[K];
  restore.push(() => void (console[method] = original));
}

function captureStream(stream: NodeJS.WriteStream): void {
  const original = stream.write;
  stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
    otherOutput.push(String(chunk));
    return (original as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof stream.write;
  restore.push(() => void (stream.write = original));
}

beforeAll(async () => {
  for (const m of ['log', 'info', 'warn', 'error', 'debug'] as const) capture(m);
  captureStream(process.stdout);
  captureStream(process.stderr);
  oidc = await startOidcIssuer();
  t = await startTestServer({
    logLevel: 'debug',
    logSink: (line) => serverLog.push(line),
    accounts: { allowLoopbackOidcIssuers: true, deviceIntervalSeconds: 1, passwordCost: { N: 1 << 12, r: 8, p: 1 } },
  });
  keep(t.app);
  await t.server.configureApplication(t.app.id, { redirectUris: [REDIRECT], oidcIssuers: [{ issuer: oidc.issuer, audience: OIDC_AUDIENCE }] });
  child = keep(await t.server.createApplication({ name: 'Auth Logging DLC' }));
  await t.server.configureApplication(child.id, { parentId: t.app.id });
});

afterAll(async () => {
  for (const c of clients) await c.destroy();
  await t?.close();
  oidc?.close();
  for (const r of restore.splice(0).reverse()) r();
  cleanupTempDirs();
});

describe('server flows at debug', () => {
  it('sign-up, sign-in with a wrong and the right password, the account page, sign-out', async () => {
    const s = await signedUp('log_alice');
    const other = new PageSession(t.server.url);
    expect((await other.post('/login', { login: 'log_alice', password: secret('not my password 42') })).status).toBe(401);
    const password = newPassword();
    await new PageSession(t.server.url).signUp('log_bob', password);
    expect((await other.post('/login', { login: 'log_bob', password })).status).toBe(303);
    secret(other.cookieValue!);
    expect((await other.post('/logout', { csrf: await csrfOf(other) })).status).toBe(303);
    expect((await s.get('/account')).status).toBe(200);
  });

  it('code flow with PKCE and a nonce: wrong verifier, exchange, ID token, refresh, reuse, revoke, Gateway 4004', async () => {
    const s = await signedUp('log_carol');
    const p = pkce();
    secret(p.verifier);
    const location = await s.consent({ response_type: 'code', client_id: t.app.id, scope: 'openid sdk.social_layer', redirect_uri: REDIRECT, state: 'st', nonce: 'nonce-1', code_challenge: p.challenge, code_challenge_method: 'S256' });
    const code = secret(queryOf(location).get('code')!);
    const exchange = (verifier: string) => oauthPost(t, '/oauth2/token', { grant_type: 'authorization_code', client_id: t.app.id, code, code_verifier: verifier, redirect_uri: REDIRECT });
    expect((await exchange(secret(pkce().verifier))).body.error).toBe('invalid_grant');
    const tokens = keep(await exchange(p.verifier)).body;
    expect(tokens.id_token).toBeDefined();
    expect((await exchange(p.verifier)).body.error).toBe('invalid_grant');

    const again = await linkAccount(t, s, REDIRECT);
    keep(again);
    secret(again.verifier);
    const refreshed = keep(await oauthPost(t, '/oauth2/token', { grant_type: 'refresh_token', client_id: t.app.id, refresh_token: again.body.refresh_token })).body;
    expect((await oauthPost(t, '/oauth2/token', { grant_type: 'refresh_token', client_id: t.app.id, refresh_token: again.body.refresh_token })).body.error).toBe('invalid_grant');
    expect((await t.req('GET', '/oauth2/@me', { token: refreshed.access_token })).status).toBe(200);
    expect((await t.req('GET', '/oauth2/userinfo', { token: refreshed.access_token })).status).toBe(200);
    expect((await t.req('GET', '/users/@me', { token: secret(randomBytes(32).toString('base64url')) })).status).toBe(401);

    const gw = await RawGateway.open(t.server);
    await gw.identify(refreshed.access_token);
    expect((await oauthPost(t, '/oauth2/token/revoke', { client_id: t.app.id, token: refreshed.access_token })).status).toBe(200);
    expect(await gw.closed()).toBe(4004);
    const bad = await RawGateway.open(t.server);
    bad.send({ op: 2, d: { token: refreshed.access_token, properties: { os: 'l', browser: 'b', device: 'd' } } });
    expect(await bad.closed()).toBe(4004);
  });

  it('confidential client: Basic and form secrets, a wrong secret, client_credentials, AUTHORIZE_REQUEST with the bot token', async () => {
    const s = await signedUp('log_dave');
    const code = secret(queryOf(await s.consent({ response_type: 'code', client_id: t.app.id, scope: 'identify', redirect_uri: REDIRECT, state: 's' })).get('code')!);
    const wrong = await oauthPost(t, '/oauth2/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, { id: t.app.id, secret: secret('wrong-secret-value-123') });
    expect(wrong.status).toBe(401);
    const ok = keep(await oauthPost(t, '/oauth2/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: t.app.id, client_secret: t.app.clientSecret }));
    expect(ok.status).toBe(200);
    const cc = keep(await oauthPost(t, '/oauth2/token', { grant_type: 'client_credentials', scope: 'identify' }, { id: t.app.id, secret: t.app.clientSecret }));
    expect(cc.status).toBe(200);
    const me = (await t.req('GET', '/users/@me', { token: ok.body.access_token })).body;
    expect((await t.req('POST', '/applications/@me/authorize-requests', { token: t.app.botToken, bot: true, body: { user_id: me.id } })).status).toBe(204);
  });

  it('device flow approved on /activate, with pending and slow_down polls', async () => {
    const s = await signedUp('log_erin');
    const start = keep(await oauthPost(t, '/oauth2/device/authorize', { client_id: t.app.id, scope: 'openid sdk.social_layer' })).body;
    const poll = () => oauthPost(t, '/oauth2/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', client_id: t.app.id, device_code: start.device_code });
    expect((await poll()).body.error).toBe('authorization_pending');
    const page = await s.get(`/activate?user_code=${start.user_code}`);
    const consent = await s.post('/activate', { csrf: secret(PageSession.csrf(page.text)), user_code: start.user_code });
    expect((await s.post('/activate/decision', { ...PageSession.hiddenFields(consent.text), decision: 'allow' })).text).toContain('Device connected');
    await new Promise((r) => setTimeout(r, 1050));
    expect(keep(await poll()).status).toBe(200);
  });

  it('provisional accounts: device ID, bot-issued, a real OIDC issuer, a refused ID token, and the bot-issued exchange', async () => {
    const device = keep(await t.req('POST', '/partner-sdk/token', { body: { client_id: t.app.id, external_auth_type: 'DEVICE_ID', external_auth_token: newDeviceId() } }));
    expect(device.status).toBe(200);
    const bot = keep(await t.req('POST', '/partner-sdk/token/bot', { token: t.app.botToken, bot: true, body: { external_user_id: secret('backend-player-log-1') } }));
    expect(bot.status).toBe(200);
    const exchanged = keep(await t.req('POST', '/partner-sdk/token', { body: { client_id: t.app.id, external_auth_type: 'DISCORD_BOT_ISSUED_ACCESS_TOKEN', external_auth_token: bot.body.access_token } }));
    expect(exchanged.status).toBe(200);
    const idToken = secret(await oidc.idToken('log-player'));
    const viaOidc = keep(await t.req('POST', '/partner-sdk/token', { body: { client_id: t.app.id, external_auth_type: 'OIDC', external_auth_token: idToken } }));
    expect(viaOidc.status).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    const expired = secret(signRs256({ kid: OIDC_KID }, { iss: oidc.issuer, aud: OIDC_AUDIENCE, sub: 'old', iat: now - 7200, exp: now - 3600 }, oidc.key));
    const refused = await t.req('POST', '/partner-sdk/token', { body: { client_id: t.app.id, external_auth_type: 'OIDC', external_auth_token: expired } });
    expect(refused.body.code).toBe(530001);
    const wrongSecret = await t.req('POST', '/partner-sdk/token', { body: { client_id: t.app.id, client_secret: secret('not-the-client-secret'), external_auth_type: 'DEVICE_ID', external_auth_token: newDeviceId() } });
    expect(wrongSecret.status).toBe(401);
  });

  it('merging, unmerging (client credentials and bot), unlinking and removing the app on the account page', async () => {
    const deviceId = newDeviceId();
    keep(await t.req('POST', '/partner-sdk/token', { body: { client_id: t.app.id, external_auth_type: 'DEVICE_ID', external_auth_token: deviceId } }));
    const s = await signedUp('log_frank');
    const merged = keep(await linkAccount(t, s, REDIRECT, { external_auth_type: 'DEVICE_ID', external_auth_token: deviceId }));
    secret(merged.verifier);
    expect(merged.status).toBe(200);
    const unmerge = await t.req('POST', '/partner-sdk/provisional-accounts/unmerge', { body: { client_id: t.app.id, external_auth_type: 'DEVICE_ID', external_auth_token: deviceId } });
    expect(unmerge.status).toBe(204);

    const bot = keep(await t.req('POST', '/partner-sdk/token/bot', { token: t.app.botToken, bot: true, body: { external_user_id: secret('backend-player-log-2') } }));
    const botMerge = keep(await linkAccount(t, s, REDIRECT, { external_auth_type: 'DISCORD_BOT_ISSUED_ACCESS_TOKEN', external_auth_token: bot.body.access_token }));
    secret(botMerge.verifier);
    expect(botMerge.status).toBe(200);
    expect((await t.req('POST', '/partner-sdk/provisional-accounts/unmerge/bot', { token: t.app.botToken, bot: true, body: { external_user_id: 'backend-player-log-2' } })).status).toBe(204);

    const unlinkDevice = newDeviceId();
    keep(await t.req('POST', '/partner-sdk/token', { body: { client_id: t.app.id, external_auth_type: 'DEVICE_ID', external_auth_token: unlinkDevice } }));
    const linked = keep(await linkAccount(t, s, REDIRECT, { external_auth_type: 'DEVICE_ID', external_auth_token: unlinkDevice }));
    secret(linked.verifier);
    expect((await s.post(`/account/applications/${t.app.id}/unlink`, { csrf: await csrfOf(s) })).location).toBe('/account?done=unlinked');
    const relinked = keep(await linkAccount(t, s, REDIRECT));
    secret(relinked.verifier);
    expect((await s.post(`/account/applications/${t.app.id}/remove`, { csrf: await csrfOf(s) })).location).toBe('/account?done=removed');
    expect((await t.req('GET', '/users/@me', { token: relinked.body.access_token })).status).toBe(401);
  });

  it('a ban: tokens gone, sign-in refused, merges answer 530017 until the ban lifts', async () => {
    const deviceId = newDeviceId();
    keep(await t.req('POST', '/partner-sdk/token', { body: { client_id: t.app.id, external_auth_type: 'DEVICE_ID', external_auth_token: deviceId } }));
    const password = newPassword();
    const s = new PageSession(t.server.url);
    await s.signUp('log_mallory', password);
    secret(s.cookieValue!);
    const tokens = keep(await linkAccount(t, s, REDIRECT, { external_auth_type: 'DEVICE_ID', external_auth_token: deviceId }));
    secret(tokens.verifier);
    const me = (await t.req('GET', '/users/@me', { token: tokens.body.access_token })).body;
    await t.server.accounts.ban(me.id);
    expect((await new PageSession(t.server.url).post('/login', { login: 'log_mallory', password })).status).toBe(403);
    const other = await signedUp('log_nora');
    const refused = keep(await linkAccount(t, other, REDIRECT, { external_auth_type: 'DEVICE_ID', external_auth_token: deviceId }));
    secret(refused.verifier);
    expect(refused.body.code).toBe(530017);
    await t.server.accounts.unban(me.id);
    const allowed = keep(await linkAccount(t, other, REDIRECT, { external_auth_type: 'DEVICE_ID', external_auth_token: deviceId }));
    secret(allowed.verifier);
    expect(allowed.status).toBe(200);
  });

  it('unmatched URLs are logged by shape: an interaction token in a v9 path or an unversioned one never appears', async () => {
    const token64 = secret(randomBytes(32).toString('hex'));
    const letters = secret('q'.repeat(40));
    for (const path of [`/api/v9/webhooks/${t.app.id}/${token64}`, `/api/webhooks/${t.app.id}/${token64}/messages/@original`, `/webhooks/${letters}`, `/api/v10/nothing/${token64}?token=${token64}`]) {
      const from = serverLog.length;
      expect((await fetch(t.server.url + path)).status).toBe(404);
      const lines = serverLog.slice(from).filter((l) => l.includes('"route"'));
      expect(lines.length, path).toBeGreaterThan(0);
      expect(lines.some((l) => l.includes('/webhooks/') || l.includes('/nothing/')), path).toBe(true);
    }
  });

  it('child application tokens, public and with the child secret, and a refused subject token', async () => {
    const s = await signedUp('log_olga');
    const parent = keep(await linkAccount(t, s, REDIRECT));
    secret(parent.verifier);
    const form = { grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token: parent.body.access_token, subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' };
    expect(keep(await oauthPost(t, '/oauth2/token', { ...form, client_id: child.id })).status).toBe(200);
    expect(keep(await oauthPost(t, '/oauth2/token', form, { id: child.id, secret: child.clientSecret })).status).toBe(200);
    expect((await oauthPost(t, '/oauth2/token', { ...form, client_id: child.id, subject_token: secret(randomBytes(32).toString('base64url')) })).body.error).toBe('invalid_grant');
  });
});

describe('client flows at Verbose', () => {
  it('guest, linking with a merge, refresh, the account page, the device flow, unmerge, child token, token checks and revoke', async () => {
    const deviceId = newDeviceId();
    const guest = newClient();
    const guestToken = keep(await guest.getProvisionalToken(t.app.id, AuthenticationExternalAuthType.DeviceId, deviceId));
    await guest.updateToken(AuthorizationTokenType.Bearer, guestToken.accessToken);
    let expiring = 0;
    guest.setTokenExpirationCallback(() => expiring++, 8 * 24 * 3600 * 1000);
    await guest.connect();
    for (let i = 0; i < 50 && expiring === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(expiring).toBe(1);
    expect((await guest.fetchCurrentUser(AuthorizationTokenType.Bearer, guestToken.accessToken)).name).toBe(guest.getCurrentUserV2()!.username);
    expect(((await guest.openConnectedGamesSettingsInDiscord().catch((e) => e)) as ClientResultError).type).toBe(ErrorType.ValidationError);

    const browser = await signedUp('log_pat');
    const client = newClient();
    client.setAuthorizeOpener((url) => browser.consentAt(url));
    const v = client.createAuthorizationCodeVerifier();
    secret(v.verifier());
    const args = new AuthorizationArgs();
    args.setScopes(Client.getDefaultCommunicationScopes());
    args.setCodeChallenge(v.challenge());
    args.setNonce('log-nonce');
    const { code, redirectUri } = keep(await client.authorize(args));
    const tokens = keep(await client.getTokenFromProvisionalMerge(t.app.id, code, v.verifier(), redirectUri, AuthenticationExternalAuthType.DeviceId, deviceId));
    const fresh = keep(await client.refreshToken(t.app.id, tokens.refreshToken));
    expect((await client.refreshToken(t.app.id, tokens.refreshToken).catch((e) => e)).type).toBe(ErrorType.AuthorizationFailed);
    await client.updateToken(AuthorizationTokenType.Bearer, fresh.accessToken);
    await client.connect();
    let shown = '';
    client.setAccountPageOpener(async (url) => {
      shown = (await browser.get(url)).text;
    });
    await client.openConnectedGamesSettingsInDiscord();
    expect(shown).toContain('Test Game');

    const couch = newClient();
    couch.setAuthorizeDeviceScreen({
      open: (info) => {
        secret(info.userCode);
        void (async () => {
          const page = await browser.get(info.verificationUriComplete);
          const consent = await browser.post('/activate', { csrf: secret(PageSession.csrf(page.text)), user_code: info.userCode });
          await browser.post('/activate/decision', { ...PageSession.hiddenFields(consent.text), decision: 'allow' });
        })();
      },
      close: () => {},
    });
    const deviceArgs = new DeviceAuthorizationArgs();
    deviceArgs.setScopes('openid sdk.social_layer');
    const couchTokens = keep(await couch.getTokenFromDevice(deviceArgs));

    const childToken = keep(await client.exchangeChildToken(fresh.accessToken, child.id));
    expect(childToken.accessToken).not.toBe('');
    await client.unmergeIntoProvisionalAccount(t.app.id, AuthenticationExternalAuthType.DeviceId, deviceId);
    const bad = await client.fetchCurrentUser(AuthorizationTokenType.Bearer, secret(randomBytes(32).toString('base64url'))).catch((e) => e);
    expect(bad).toMatchObject({ type: ErrorType.HTTPError, status: 401 });
    await couch.revokeToken(t.app.id, couchTokens.accessToken);
    expect((await couch.fetchCurrentUser(AuthorizationTokenType.Bearer, couchTokens.accessToken).catch((e) => e)).status).toBe(401);
  }, 20_000);
});

describe('logs', () => {
  it('have a line for each flow, and no token, code, verifier, secret, password, cookie or ID token at any level', () => {
    for (const kind of ['oauth2 endpoint', 'authorize consent', 'device consent', 'provisional token issued', 'provisional account merged', 'identity unmerged', 'game unlinked', 'application deauthorized', 'user banned', '"route":"/oauth2/authorize"', '"route":"/activate"', '"route":"/api/v10/partner-sdk/token"']) {
      expect([kind, serverLog.some((l) => l.includes(kind))]).toEqual([kind, true]);
    }
    // JSON lines from pino, at debug.
    expect(serverLog.every((l) => typeof JSON.parse(l).level === 'number')).toBe(true);
    expect(serverLog.some((l) => JSON.parse(l).levelName === 'debug')).toBe(true);
    expect(clientLog.some((l) => l.startsWith('POST /oauth2/token'))).toBe(true);
    expect(clientLog.some((l) => l.startsWith('token expiration'))).toBe(true);

    const short = [...secrets].filter((s) => s.length < 8);
    expect(short).toEqual([]);
    expect(secrets.size).toBeGreaterThan(60);
    const lines = [...serverLog.map((l) => `server: ${l}`), ...clientLog.map((l) => `client: ${l}`), ...otherOutput.map((l) => `output: ${l}`)];
    const leaks: string[] = [];
    for (const s of secrets) for (const line of lines) if (line.includes(s)) leaks.push(`${s.slice(0, 6)}… in ${line.slice(0, 200)}`);
    expect(leaks).toEqual([]);
    // Nothing leaned on the redactor either: no line had a credential-shaped value to mask.
    expect(lines.filter((l) => l.includes('[redacted]'))).toEqual([]);
    expect(lines.filter((l) => /[?&](code|device_code|refresh_token|access_token)=/.test(l))).toEqual([]);
  });

  it('the redactor still masks a credential that slips into a message', () => {
    const line = redact('GET social-layer-1:/authorize/callback?code=abc.DEF-123&state=x {"client_secret":"s3cret","refresh_token":"r","code":530017} Bearer abc.def');
    expect(line).toBe('GET social-layer-1:/authorize/callback?code=[redacted]&state=x {"client_secret":"[redacted]","refresh_token":"[redacted]","code":530017} Bearer [redacted]');
  });
});
