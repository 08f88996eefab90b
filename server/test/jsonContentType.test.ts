// JSON answers say `Content-Type: application/json` exactly, as the public API does: strict client
// libraries compare the header exactly and read any other value's body as bytes. Walks success
// and error answers of many routes (200, 400 validation and bad JSON, 401, 404, 429, the OAuth2
// token endpoint's RFC 6749 errors); pages keep their charset.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { httpFrom } from './securityHelpers.ts';

let t: TestServer;
let guest: { token: string; userId: string };

beforeAll(async () => {
  t = await startTestServer();
  guest = await t.guest('Ada');
});

afterAll(async () => {
  await t?.close();
  cleanupTempDirs();
});

async function typeOf(method: string, path: string, init: { token?: string; scheme?: 'Bot' | 'Bearer'; body?: string; contentType?: string } = {}): Promise<{ status: number; type: string | null }> {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `${init.scheme ?? 'Bearer'} ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
  const res = await fetch(t.server.url + path, { method, headers, body: init.body });
  await res.arrayBuffer();
  return { status: res.status, type: res.headers.get('content-type') };
}

describe('Content-Type of JSON answers', () => {
  it('is exactly application/json on successes, refusals and errors across the API', async () => {
    const bot = { token: t.app.botToken, scheme: 'Bot' as const };
    const cases: [string, string, Parameters<typeof typeOf>[2], number][] = [
      ['GET', '/api/v10/gateway', {}, 200],
      ['GET', '/api/v10/gateway/bot', bot, 200],
      ['GET', '/api/v10/users/@me', { token: guest.token }, 200],
      ['GET', '/api/v10/users/@me', bot, 200],
      ['GET', '/api/v10/users/@me/guilds', bot, 200],
      ['GET', '/api/v10/applications/@me', bot, 200],
      ['GET', '/api/v10/oauth2/@me', { token: guest.token }, 200],
      ['GET', '/api/v10/users/@me/relationships', { token: guest.token }, 200],
      // The lobby route sends JSON it serialized itself (a string body).
      ['PUT', '/api/v10/lobbies', { token: guest.token, body: JSON.stringify({ secret: 'ct-test' }) }, 200],
      ['GET', '/.well-known/openid-configuration', {}, 200],
      // 401: no token, and a made-up one.
      ['GET', '/api/v10/users/@me', {}, 401],
      ['GET', '/api/v10/users/@me', { token: randomBytes(24).toString('base64url') }, 401],
      // 404: a path that names nothing, and an ID that cannot be one.
      ['GET', '/api/v10/no-such-route', {}, 404],
      ['GET', '/api/v10/channels/not-an-id', bot, 404],
      ['GET', '/nothing-here.json', {}, 404],
      // 400: validation, a body that does not parse, the wrong body type.
      ['POST', '/api/v10/partner-sdk/token', { body: JSON.stringify({ client_id: t.app.id }) }, 400],
      ['POST', '/api/v10/partner-sdk/token', { body: '{"client_id":' }, 400],
      ['POST', '/api/v10/partner-sdk/token', { body: 'client_id=1', contentType: 'text/plain' }, 400],
      // The OAuth2 token endpoint: RFC 6749 error bodies, refused body type included.
      ['POST', '/api/v10/oauth2/token', { body: new URLSearchParams({ grant_type: 'authorization_code', code: 'nope', client_id: t.app.id, client_secret: t.app.clientSecret }).toString(), contentType: 'application/x-www-form-urlencoded' }, 400],
      ['POST', '/api/v10/oauth2/token', { body: '{}' }, 400],
    ];
    const seen: string[] = [];
    for (const [method, path, init, status] of cases) {
      const r = await typeOf(method, path, init);
      expect(r.status, `${method} ${path}`).toBe(status);
      seen.push(`${method} ${path} ${r.status}: ${r.type}`);
    }
    expect(seen.filter((s) => !s.endsWith(': application/json'))).toEqual([]);
  });

  it('is exactly application/json on a 429', async () => {
    // Made-up tokens draw on the client address's budget (50): the 51st is refused.
    const from = '127.0.0.41';
    let last: { status: number; headers: Record<string, string | string[] | undefined> } | undefined;
    for (let i = 0; i < 51; i++) {
      last = await httpFrom(t.server.url, 'GET', '/api/v10/users/@me', { localAddress: from, headers: { authorization: `Bearer ${randomBytes(24).toString('base64url')}` } });
      if (last.status === 429) break;
    }
    expect(last?.status).toBe(429);
    expect(last?.headers['content-type']).toBe('application/json');
    expect(last?.headers['retry-after']).toBeDefined();
  });

  it('pages and style sheets keep their charset', async () => {
    expect((await typeOf('GET', '/login')).type).toBe('text/html; charset=utf-8');
    expect((await typeOf('GET', '/assets/platform.css')).type).toBe('text/css; charset=utf-8');
  });
});
