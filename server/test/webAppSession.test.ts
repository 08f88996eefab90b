// The web app's page and its session hand-off over plain HTTP (server/src/http/routes/webApp.ts):
// who gets the page, what it carries, and the only way to get a first-party session token out of
// the account cookie: a same-origin POST with the page's CSRF token. Every other way (no cookie,
// another Origin, no Origin, a cross-site fetch, a wrong CSRF token, a GET, a preflight) gets
// nothing, and no token is written for it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../web/build.mjs';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
let origin: string;
let cookie: string;
let csrf: string;

async function signUp(login: string): Promise<string> {
  const res = await fetch(`${origin}/signup`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({ login, password: 'correct horse battery', display_name: login }).toString(),
  });
  expect(res.status).toBe(303);
  const set = res.headers.get('set-cookie') ?? '';
  const value = /sl_session=([^;]+)/.exec(set)?.[1];
  expect(value).toBeTruthy();
  return `sl_session=${value}`;
}

function exchange(headers: Record<string, string>, method = 'POST', body: string | undefined = '{}') {
  return fetch(`${origin}/app/session`, { method, headers: { 'content-type': 'application/json', ...headers }, ...(body === undefined ? {} : { body }) });
}

const tokenCount = async () => Number((await t.server.store.database.db.selectFrom('access_tokens').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

beforeAll(async () => {
  await build();
  t = await startTestServer({ accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } } });
  origin = t.server.url;
  cookie = await signUp('web_ada');
  const page = await fetch(`${origin}/app`, { headers: { cookie } });
  csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(await page.text())?.[1] ?? '';
}, 120_000);

afterAll(async () => {
  await t?.close();
  cleanupTempDirs();
});

describe('the /app page', () => {
  it('sends a browser that is not signed in to sign in, and back to the same path', async () => {
    for (const path of ['/app', '/app/invite/abc123', '/app/guilds/123/channels/456']) {
      const res = await fetch(`${origin}${path}`, { redirect: 'manual' });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
  });

  it('serves the signed-in user the shell with the session\'s CSRF token, no caching, no framing, a same-origin CSP, and no CORS', async () => {
    const res = await fetch(`${origin}/app/invite/abc123`, { headers: { cookie, origin: 'https://evil.example' } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(html).toContain('<script type="module" src="/app/assets/app.js"></script>');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain(`connect-src 'self' ${origin.replace(/^http/, 'ws')}`);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves the bundle and nothing else under /app/assets/', async () => {
    const js = await fetch(`${origin}/app/assets/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('text/javascript');
    expect((await js.text()).length).toBeGreaterThan(1000);
    // Revalidation (cache-control no-cache) answers 304 while the file is unchanged.
    const etag = js.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    const again = await fetch(`${origin}/app/assets/app.js`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect((await fetch(`${origin}/app/assets/app.js`, { headers: { 'if-none-match': '"stale"' } })).status).toBe(200);
    expect((await fetch(`${origin}/app/assets/app.css`)).headers.get('content-type')).toContain('text/css');
    for (const bad of ['app.js.map', '..%2F..%2Fpackage.json', '%2e%2e%2fbuild.mjs', 'index.html']) {
      expect([bad, (await fetch(`${origin}/app/assets/${bad}`)).status]).toEqual([bad, 404]);
    }
  });
});

describe('POST /app/session', () => {
  it('hands the signed-in page a first-party session token that the public API takes without a scheme', async () => {
    const res = await exchange({ cookie, origin, 'x-csrf-token': csrf, 'sec-fetch-site': 'same-origin' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const body = await res.json();
    expect(body).toMatchObject({ token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expires_in: 86_400, user: { username: 'web_ada' } });
    const me = await fetch(`${t.api}/users/@me`, { headers: { authorization: body.token } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ id: body.user.id, username: 'web_ada' });
  });

  it('gives nothing to a request without the cookie, from another origin, without an Origin, cross-site, or without the CSRF token, and writes no token', async () => {
    const before = await tokenCount();
    const cases: [string, Record<string, string>, number][] = [
      ['no cookie', { origin, 'x-csrf-token': csrf }, 401],
      ['another origin', { cookie, origin: 'https://evil.example', 'x-csrf-token': csrf }, 403],
      ['same host, another port', { cookie, origin: origin.replace(/:(\d+)$/, (_m, p) => `:${Number(p) + 1}`), 'x-csrf-token': csrf }, 403],
      ['no Origin', { cookie, 'x-csrf-token': csrf }, 403],
      ['Origin null', { cookie, origin: 'null', 'x-csrf-token': csrf }, 403],
      ['cross-site fetch metadata', { cookie, origin, 'x-csrf-token': csrf, 'sec-fetch-site': 'same-site' }, 403],
      ['no CSRF token', { cookie, origin }, 403],
      ['wrong CSRF token', { cookie, origin, 'x-csrf-token': `${csrf}x` }, 403],
      ['a forged cookie', { cookie: 'sl_session=forged', origin, 'x-csrf-token': csrf }, 401],
    ];
    for (const [name, headers, status] of cases) {
      const res = await exchange(headers);
      const text = await res.text();
      expect([name, res.status]).toEqual([name, status]);
      expect([name, /[A-Za-z0-9_-]{43}/.test(text)]).toEqual([name, false]);
    }
    // A form post (the only cross-site request a browser sends without a preflight) is refused as
    // a content type before anything else.
    const form = await fetch(`${origin}/app/session`, { method: 'POST', headers: { cookie, origin: 'https://evil.example', 'content-type': 'text/plain' }, body: '{}' });
    expect(form.status).toBeGreaterThanOrEqual(400);
    expect(form.status).toBeLessThan(500);
    // GET is not a way in (it is one of the page's own paths: the HTML shell, no token), and the
    // preflight approves nothing.
    const get = await fetch(`${origin}/app/session`, { headers: { cookie } });
    expect(get.headers.get('content-type')).toContain('text/html');
    expect(await get.text()).not.toContain('"token"');
    const preflight = await fetch(`${origin}/app/session`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-csrf-token, content-type' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-headers')).toBeNull();
    expect(await tokenCount()).toBe(before);
  });

  it('is refused after signing out, which revokes the app\'s tokens and ends the cookie session', async () => {
    const other = await signUp('web_bo');
    const page = await fetch(`${origin}/app`, { headers: { cookie: other } });
    const otherCsrf = /<meta name="csrf-token" content="([^"]+)">/.exec(await page.text())![1]!;
    const { token } = await (await exchange({ cookie: other, origin, 'x-csrf-token': otherCsrf })).json();
    expect((await fetch(`${t.api}/users/@me`, { headers: { authorization: token } })).status).toBe(200);
    // Sign-out is held to the same checks.
    const forged = await fetch(`${origin}/app/session/logout`, { method: 'POST', headers: { cookie: other, origin: 'https://evil.example', 'x-csrf-token': otherCsrf, 'content-type': 'application/json' }, body: '{}' });
    expect(forged.status).toBe(403);
    expect((await fetch(`${t.api}/users/@me`, { headers: { authorization: token } })).status).toBe(200);

    const out = await fetch(`${origin}/app/session/logout`, { method: 'POST', headers: { cookie: other, origin, 'x-csrf-token': otherCsrf, 'content-type': 'application/json' }, body: '{}' });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await fetch(`${t.api}/users/@me`, { headers: { authorization: token } })).status).toBe(401);
    expect((await exchange({ cookie: other, origin, 'x-csrf-token': otherCsrf })).status).toBe(401);
    expect((await fetch(`${origin}/app`, { headers: { cookie: other }, redirect: 'manual' })).status).toBe(303);
    // The first user's session is untouched.
    expect((await exchange({ cookie, origin, 'x-csrf-token': csrf })).status).toBe(200);
  });
});
