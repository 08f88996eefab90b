// Provisional accounts from external OIDC ID tokens, checked against a real issuer started from
// the `oidc-provider` package on 127.0.0.1 (the server runs with allowLoopbackOidcIssuers, the
// test/dev mode). Valid tokens come from the provider's own login flow; the broken ones are
// signed with the provider's key (we hand it the key) or with another key.
import { createServer, type Server } from 'node:http';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRs256 } from '../src/oauth2/jwt.ts';
import { isPublicAddress, issuerUrlAllowed, strictHostnameOk } from '../src/oauth2/issuerHostnames.ts';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { listen, OIDC_AUDIENCE as AUDIENCE, OIDC_KID as KID, OIDC_OTHER_CLIENT, startOidcIssuer, type OidcIssuer } from './oidcIssuer.ts';

let t: TestServer;
let strict: TestServer;
let oidc: OidcIssuer;
let issuer: string;
let redirector: Server;
let redirectorHits = 0;
let providerKey: KeyObject;

beforeAll(async () => {
  oidc = await startOidcIssuer();
  issuer = oidc.issuer;
  providerKey = oidc.key;

  // An "issuer" whose discovery answers with a redirect: it must never be followed.
  redirector = createServer((req, res) => {
    if (req.url === '/.well-known/openid-configuration') {
      res.writeHead(302, { location: `${issuer}/.well-known/openid-configuration` }).end();
    } else {
      redirectorHits++;
      res.writeHead(404).end();
    }
  });
  const rport = await listen(redirector);

  t = await startTestServer({ accounts: { allowLoopbackOidcIssuers: true } });
  await t.server.configureApplication(t.app.id, {
    oidcIssuers: [
      { issuer, audience: AUDIENCE },
      { issuer: `http://127.0.0.1:${rport}`, audience: AUDIENCE },
    ],
  });
  strict = await startTestServer();
  await strict.server.configureApplication(strict.app.id, { oidcIssuers: [{ issuer, audience: AUDIENCE }] });
});

afterAll(async () => {
  await t.close();
  await strict.close();
  oidc.close();
  redirector.close();
  cleanupTempDirs();
});

const providerIdToken = (login: string, clientId?: string, secret?: string) => oidc.idToken(login, clientId, secret);

function exchange(server: TestServer, idToken: string, type = 'OIDC') {
  return server.req('POST', '/partner-sdk/token', { body: { client_id: server.app.id, external_auth_type: type, external_auth_token: idToken } });
}

function mint(claims: Record<string, unknown>, key: KeyObject = providerKey, header: Record<string, unknown> = { kid: KID }): string {
  const now = Math.floor(Date.now() / 1000);
  return signRs256(header, { iss: issuer, aud: AUDIENCE, sub: 'minted', iat: now, exp: now + 600, ...claims }, key);
}

async function userCount(): Promise<number> {
  const r = await t.server.store.database.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

describe('OIDC external credentials', () => {
  it('creates one provisional account per issuer subject from a real provider token, named from its claims', async () => {
    const idToken = await providerIdToken('player-1');
    const a = await exchange(t, idToken);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ token_type: 'Bearer', scope: 'sdk.social_layer' });
    expect(a.body.id_token).toBeDefined();
    const me = (await t.req('GET', '/users/@me', { token: a.body.access_token })).body;
    expect(me).toMatchObject({ is_provisional: true, global_name: 'Player player-1' });
    const again = await exchange(t, await providerIdToken('player-1'));
    expect((await t.req('GET', '/users/@me', { token: again.body.access_token })).body.id).toBe(me.id);
    // Apple-style ID tokens go through the same checks.
    expect((await exchange(t, idToken, 'APPLE_ID_TOKEN')).status).toBe(200);
  });

  it('server side (with the client secret) an OIDC exchange also returns a refresh_token, which the deprecated refresh grant refuses', async () => {
    const pub = await exchange(t, await providerIdToken('player-r'));
    expect(pub.body.refresh_token).toBeUndefined();
    const server = await t.req('POST', '/partner-sdk/token', { body: { client_id: t.app.id, client_secret: t.app.clientSecret, external_auth_type: 'OIDC', external_auth_token: await providerIdToken('player-r') } });
    expect(server.status).toBe(200);
    expect(server.body.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await t.req('GET', '/users/@me', { token: server.body.access_token })).status).toBe(200);
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: server.body.refresh_token, client_id: t.app.id, client_secret: t.app.clientSecret });
    const refreshed = await fetch(`${t.api}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
    expect(refreshed.status).toBe(400);
    expect(((await refreshed.json()) as { error: string }).error).toBe('invalid_grant');
    // A fresh provider token is the way: it answers the same account.
    const fresh = await exchange(t, await providerIdToken('player-r'));
    expect((await t.req('GET', '/users/@me', { token: fresh.body.access_token })).body.id).toBe((await t.req('GET', '/users/@me', { token: server.body.access_token })).body.id);
  });

  it('refuses bad signature, wrong audience, wrong issuer, expired, too old and kid-less tokens, changing nothing', async () => {
    const before = await userCount();
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const cases: [string, string, number][] = [
      ['bad signature', mint({ sub: 'x1' }, other), 530020],
      ['tampered payload', (() => { const [h, , s] = mint({ sub: 'x2' }).split('.'); return `${h}.${Buffer.from(JSON.stringify({ iss: issuer, aud: AUDIENCE, sub: 'admin', iat: 0, exp: 9e9 })).toString('base64url')}.${s}`; })(), 530020],
      ['wrong audience', await providerIdToken('player-2', OIDC_OTHER_CLIENT.id, OIDC_OTHER_CLIENT.secret), 530003],
      ['wrong issuer', mint({ iss: 'https://accounts.example.com' }), 530002],
      ['expired', mint({ exp: Math.floor(Date.now() / 1000) - 3600 }), 530001],
      ['older than a week', mint({ iat: Math.floor(Date.now() / 1000) - 8 * 86400 }), 530004],
      ['no kid', mint({}, providerKey, {}), 530027],
      ['not a JWT', 'not.a.jwt', 530020],
      ['alg none', `${Buffer.from(JSON.stringify({ alg: 'none', kid: KID })).toString('base64url')}.${Buffer.from(JSON.stringify({ iss: issuer, aud: AUDIENCE, sub: 'n', iat: 1, exp: 9e9 })).toString('base64url')}.`, 530020],
    ];
    for (const [name, token, code] of cases) {
      const r = await exchange(t, token);
      expect([name, r.status, r.body.code]).toEqual([name, 400, code]);
    }
    // The minted token with the right key passes: the failures above are the claims, not the key.
    expect((await exchange(t, mint({ sub: 'minted-ok' }))).status).toBe(200);
    expect(await userCount()).toBe(before + 1);
  });

  it('follows no redirect during discovery', async () => {
    const forged = signRs256({ kid: KID }, { iss: `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`, aud: AUDIENCE, sub: 'r', iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 600 }, providerKey);
    const r = await exchange(t, forged);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(530008);
    expect(redirectorHits).toBe(0);
  });

  it('refuses loopback http issuers outside the test/dev mode', async () => {
    const r = await exchange(strict, await providerIdToken('player-3'));
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(530002);
  });

  it('answers 530000 for providers that need a web API we cannot reach, and when no issuer is configured', async () => {
    expect((await exchange(t, 'ticket', 'STEAM_SESSION_TICKET')).body.code).toBe(530000);
    const bare = await t.server.createApplication({ name: 'No OIDC' });
    const r = await t.req('POST', '/partner-sdk/token', { body: { client_id: bare.id, external_auth_type: 'OIDC', external_auth_token: mint({}) } });
    expect(r.body.code).toBe(530000);
  });
});

describe('strict hostname rules (production)', () => {
  it('accepts public https DNS names only', () => {
    expect(strictHostnameOk('accounts.google.com')).toBe(true);
    expect(strictHostnameOk('appleid.apple.com')).toBe(true);
    for (const bad of ['localhost', 'intranet', '127.0.0.1', '[::1]', 'a.localhost', 'printer.local', 'svc.internal', 'x.home.arpa', 'idp.example', 'bad_host.com', '-a.com', 'a.com.', 'a.123']) {
      expect([bad, strictHostnameOk(bad)]).toEqual([bad, false]);
    }
    expect(issuerUrlAllowed('https://accounts.google.com', false)).toBeDefined();
    expect(issuerUrlAllowed('http://accounts.google.com', false)).toBeUndefined();
    expect(issuerUrlAllowed('https://accounts.google.com:8443', false)).toBeUndefined();
    expect(issuerUrlAllowed('https://user:pw@accounts.google.com', false)).toBeUndefined();
    expect(issuerUrlAllowed('http://127.0.0.1:9000', false)).toBeUndefined();
    expect(issuerUrlAllowed('http://127.0.0.1:9000', true)).toBeDefined();
    expect(issuerUrlAllowed('http://10.0.0.1:9000', true)).toBeUndefined();
  });

  it('treats private, loopback and link-local addresses as non-public', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1']) expect([a, isPublicAddress(a)]).toEqual([a, false]);
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) expect([a, isPublicAddress(a)]).toEqual([a, true]);
  });
});
