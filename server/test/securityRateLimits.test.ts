// Issue 9, security fixes 1, 2 and 9: rate-limit keys and budgets. Each test failed before the
// fix: budgets were keyed on the raw Authorization header (a made-up or respelled header was a
// fresh budget), the sign-in had no per-username budget, and most routes had no budget at all.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { PageSession } from './oauthHelpers.ts';
import { form, httpFrom } from './securityHelpers.ts';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } } });
});

afterAll(async () => {
  await t?.close();
  cleanupTempDirs();
});

const remaining = (r: { headers: Headers }) => Number(r.headers.get('x-ratelimit-remaining'));
const madeUp = () => randomBytes(32).toString('base64url');

async function provisionalToken(deviceId: string): Promise<string> {
  const r = await t.req('POST', '/partner-sdk/token', { body: { client_id: t.app.id, external_auth_type: 'DEVICE_ID', external_auth_token: deviceId } });
  expect(r.status).toBe(200);
  return r.body.access_token;
}

describe('fix 1: budgets are keyed on the resolved principal, never the raw header', () => {
  it('made-up tokens answer 401 and count against the client address: guessing is limited (429)', async () => {
    const from = '127.0.0.21';
    const statuses: number[] = [];
    for (let i = 0; i < 52; i++) {
      const r = await httpFrom(t.server.url, 'GET', '/api/v10/users/@me', { localAddress: from, headers: { authorization: `Bearer ${madeUp()}` } });
      statuses.push(r.status);
    }
    expect(statuses.slice(0, 50).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(50)).toEqual([429, 429]);
    // Another address is not affected, nor is a real token from the guessing address.
    const other = await httpFrom(t.server.url, 'GET', '/api/v10/users/@me', { localAddress: '127.0.0.22', headers: { authorization: `Bearer ${madeUp()}` } });
    expect(other.status).toBe(401);
    const real = await provisionalToken(randomBytes(8).toString('hex'));
    expect((await httpFrom(t.server.url, 'GET', '/api/v10/users/@me', { localAddress: from, headers: { authorization: `Bearer ${real}` } })).status).toBe(200);
  });

  it('two tokens of one user draw on one budget (the user), not one each', async () => {
    const deviceId = randomBytes(8).toString('hex');
    const a = await provisionalToken(deviceId);
    const b = await provisionalToken(deviceId);
    expect(a).not.toBe(b);
    const first = await t.req('GET', '/users/@me', { token: a });
    const second = await t.req('GET', '/users/@me', { token: b });
    expect(first.status).toBe(200);
    expect(second.body.id).toBe(first.body.id);
    expect(remaining(second)).toBe(remaining(first) - 1);
  });

  it('routes that do not authenticate ignore the header: provisional tokens and the token endpoint key on the address', async () => {
    const from = '127.0.0.23';
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await httpFrom(t.server.url, 'POST', '/api/v10/partner-sdk/token', {
        localAddress: from,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${madeUp()}` },
        body: JSON.stringify({ client_id: t.app.id, external_auth_type: 'DEVICE_ID', external_auth_token: randomBytes(8).toString('hex') }),
      });
      expect(r.status).toBe(200);
      seen.push(Number(r.headers['x-ratelimit-remaining']));
    }
    expect(seen).toEqual([seen[0], seen[0]! - 1, seen[0]! - 2]);

    const token: number[] = [];
    for (let i = 0; i < 2; i++) {
      const f = form({ grant_type: 'client_credentials', scope: 'identify' });
      const r = await httpFrom(t.server.url, 'POST', '/api/v10/oauth2/token', {
        localAddress: from,
        headers: { ...f.headers, authorization: `Bearer ${madeUp()}` },
        body: f.body,
      });
      expect(r.status).not.toBe(429);
      expect(r.headers['content-type']).toMatch(/json/);
      token.push(Number(r.headers['x-ratelimit-remaining']));
    }
    expect(token[1]).toBe(token[0]! - 1);
  });

  it('sign-in is also budgeted per username: 30 addresses guessing one password cannot go on', async () => {
    await new PageSession(t.server.url).signUp('rl_victim', 'the right password 1');
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      const f = form({ login: 'RL_Victim', password: `guess ${i}` });
      const r = await httpFrom(t.server.url, 'POST', '/login', { localAddress: `127.0.1.${i + 1}`, headers: { ...f.headers, origin: t.server.url }, body: f.body });
      statuses.push(r.status);
    }
    expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true);
    expect(statuses[30]).toBe(429);
    // Another username from the same addresses is unaffected.
    const f = form({ login: 'rl_nobody', password: 'whatever 123' });
    expect((await httpFrom(t.server.url, 'POST', '/login', { localAddress: '127.0.1.1', headers: { ...f.headers, origin: t.server.url }, body: f.body })).status).toBe(401);
  });
});

describe('fix 2: one token is one budget however its scheme is spelled', () => {
  it('Bearer, bearer, BEARER, tabs and extra spaces all draw on the same budget', async () => {
    const token = await provisionalToken(randomBytes(8).toString('hex'));
    const spellings = [`Bearer ${token}`, `bearer ${token}`, `BEARER ${token}`, `Bearer\t${token}`, `Bearer    ${token}`, `  bEaReR \t ${token}  `];
    const seen: number[] = [];
    for (const authorization of spellings) {
      const r = await t.req('GET', '/users/@me', { headers: { authorization } });
      expect(r.status).toBe(200);
      seen.push(remaining(r));
    }
    expect(seen).toEqual(seen.map((_, i) => seen[0]! - i));
  });

  it('a bot token likewise: Bot and bot share one budget', async () => {
    const a = await t.req('GET', '/gateway/bot', { headers: { authorization: `Bot ${t.app.botToken}` } });
    const b = await t.req('GET', '/gateway/bot', { headers: { authorization: `bot\t${t.app.botToken}` } });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(remaining(b)).toBe(remaining(a) - 1);
  });
});

describe('fix 9: every route has a budget', () => {
  it('every registered route answers with rate-limit headers (probed one by one), and so does an unknown URL', async () => {
    const routes = t.server.routes();
    expect(routes.length).toBeGreaterThan(40);
    const missing: string[] = [];
    for (const route of routes) {
      if (route.method === 'OPTIONS') continue;
      const path = route.url.replace(/:[A-Za-z_]+/g, '1').replace(/\*$/, 'index.html');
      let r = await httpFrom(t.server.url, route.method, path, { headers: { 'content-type': 'application/json', origin: t.server.url }, body: route.method === 'GET' || route.method === 'HEAD' ? undefined : '{}' });
      // Form routes refuse a JSON body before any hook runs; they get a form.
      if (!r.headers['x-ratelimit-limit'] && route.method === 'POST') r = await httpFrom(t.server.url, route.method, path, { ...form({}), headers: { ...form({}).headers, origin: t.server.url } });
      if (!r.headers['x-ratelimit-limit']) missing.push(`${route.method} ${route.url} -> ${r.status}`);
      expect(route.rateLimit.limit).toBeGreaterThan(0);
    }
    expect(missing).toEqual([]);
    const unknown = await t.req('GET', '/no/such/route');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-ratelimit-limit')).not.toBeNull();
  }, 60_000);

  it('/oauth2/@me, /gateway, the account page, /activate and the developer portal run out (429)', async () => {
    const token = await provisionalToken(randomBytes(8).toString('hex'));
    const targets: { path: string; headers?: Record<string, string> }[] = [
      { path: '/api/v10/oauth2/@me', headers: { authorization: `Bearer ${token}` } },
      { path: '/api/v10/gateway' },
      { path: '/account' },
      { path: '/activate' },
      { path: '/developers' },
    ];
    for (const [i, target] of targets.entries()) {
      const from = `127.0.2.${i + 1}`;
      const first = await httpFrom(t.server.url, 'GET', target.path, { localAddress: from, headers: target.headers });
      const limit = Number(first.headers['x-ratelimit-limit']);
      expect([target.path, limit > 0]).toEqual([target.path, true]);
      let last = first;
      for (let n = 1; n <= limit; n++) last = await httpFrom(t.server.url, 'GET', target.path, { localAddress: from, headers: target.headers });
      expect([target.path, last.status]).toEqual([target.path, 429]);
    }
  }, 60_000);
});
