import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';

/** Web games call the API from their own origin; the cookie-signed pages stay same-origin. */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
  cleanupTempDirs();
});

describe('CORS', () => {
  it('answers preflights for the API and marks API responses readable from any origin', async () => {
    const pre = await fetch(`${t.api}/lobbies`, {
      method: 'OPTIONS',
      headers: { origin: 'https://my-game.example', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-methods')).toContain('PUT');
    expect(pre.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');

    const g = await t.guest('Cors');
    const me = await fetch(`${t.api}/users/@me`, { headers: { origin: 'https://my-game.example', authorization: `Bearer ${g.token}` } });
    expect(me.status).toBe(200);
    expect(me.headers.get('access-control-allow-origin')).toBe('*');
    // Rate-limit headers are readable by the game's script.
    expect(me.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
    // Errors too, so the SDK can read the error body.
    const bad = await fetch(`${t.api}/users/@me`, { headers: { origin: 'https://my-game.example' } });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('gives the cookie-signed pages no CORS headers', async () => {
    const res = await fetch(`${t.server.url}/login`, { headers: { origin: 'https://my-game.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
