// Issue 9, security fixes 3, 4, 5 and 7, and the logging rule for aborted requests, each against
// the real server on loopback with real sockets. Each failed before its fix: a trickled body held
// its socket forever (fastify turns Node's request timeout off), one address could hold any number
// of sockets, a malformed Basic header was a 500, the static handler's refusals of
// traversal answered 500 with an error line, and the URLs handed out followed the Host header.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../src/index.ts';
import { cleanupTempDirs, tempDir } from './harness.ts';
import { closed, form, httpFrom, rawSocket } from './securityHelpers.ts';

const SECRET = 'secret-outside-dist-7f3a';
const log: string[] = [];
let server: RunningServer;
let appId: string;

function gamesDir(): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'demo-game', 'dist', 'assets'), { recursive: true });
  writeFileSync(join(dir, 'demo-game', 'dist', 'index.html'), '<title>demo</title>');
  writeFileSync(join(dir, 'demo-game', 'dist', 'assets', 'app.js'), 'console.log(1)');
  // Next to dist/, never served.
  writeFileSync(join(dir, 'demo-game', 'secret.txt'), SECRET);
  writeFileSync(join(dir, 'secret.txt'), SECRET);
  return dir;
}

/** Log lines at warn (40) or above. */
const loud = () => log.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level >= 40);

beforeAll(async () => {
  server = await startServer({ port: 0, dataDir: tempDir(), samplesDir: gamesDir(), logLevel: 'debug', logSink: (l) => log.push(l) });
  appId = (await server.createApplication({ name: 'Security' })).id;
});

afterAll(async () => {
  await server?.close();
  cleanupTempDirs();
});

describe('fix 3: slow clients', () => {
  it('a body trickled one byte every 10 s is cut within 30 s', async () => {
    const s = await rawSocket(server.url);
    const done = closed(s);
    const started = Date.now();
    s.write(`POST /api/v10/lobbies HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
    const drip = setInterval(() => s.writable && s.write(' '), 10_000);
    const cut = await Promise.race([done, new Promise<null>((r) => setTimeout(() => r(null), 30_000))]);
    clearInterval(drip);
    s.destroy();
    expect(cut).not.toBeNull();
    expect(cut!).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 40_000);

  it('headers trickled one line every 5 s are cut too', async () => {
    const s = await rawSocket(server.url);
    const done = closed(s);
    s.write('GET /api/v10/gateway HTTP/1.1\r\n');
    const drip = setInterval(() => s.writable && s.write(`X-Slow-${Date.now()}: 1\r\n`), 5_000);
    const cut = await Promise.race([done, new Promise<null>((r) => setTimeout(() => r(null), 30_000))]);
    clearInterval(drip);
    s.destroy();
    expect(cut).not.toBeNull();
  }, 40_000);

  it('200 slow sockets from one address: the excess is closed at once, and another address is served', async () => {
    const sockets: Socket[] = [];
    const gone: Promise<string>[] = [];
    for (let i = 0; i < 200; i++) {
      const s = await rawSocket(server.url, '127.0.0.2').catch(() => null);
      if (!s) continue;
      sockets.push(s);
      gone.push(closed(s));
      // A request that never finishes its headers.
      s.write('GET / HTTP/1.1\r\nHost: x\r\n');
    }
    // The server closes what is over the cap as it accepts it.
    await new Promise((r) => setTimeout(r, 1000));
    const open = sockets.filter((s) => !s.destroyed).length;
    expect(open).toBeGreaterThan(0);
    expect(open).toBeLessThanOrEqual(128);
    const other = await httpFrom(server.url, 'GET', '/api/v10/gateway', { localAddress: '127.0.0.3' });
    expect(other.status).toBe(200);
    // The same address gets a connection again once its slow sockets are gone.
    for (const s of sockets) s.destroy();
    await Promise.all(gone);
    await new Promise((r) => setTimeout(r, 100));
    expect((await httpFrom(server.url, 'GET', '/api/v10/gateway', { localAddress: '127.0.0.2' })).status).toBe(200);
  }, 30_000);

  it('an aborted request logs at debug, never warn or error', async () => {
    const before = log.length;
    const s = await rawSocket(server.url);
    s.write(`POST /api/v10/partner-sdk/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"client_id":`);
    await new Promise((r) => setTimeout(r, 200));
    s.destroy();
    await new Promise((r) => setTimeout(r, 500));
    const lines = log.slice(before).map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    expect(lines.some((l) => l.level === 20 && /abort/.test(l.msg))).toBe(true);
  });
});

describe('fix 4: malformed Basic credentials at the token endpoint', () => {
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  it.each([
    ['a broken %-escape in the id', `Basic ${b64('%zz:secret')}`],
    ['a broken %-escape in the secret', `Basic ${b64('123:%E0%A4%A')}`],
    ['no colon', `Basic ${b64('justonepart')}`],
    ['not base64', 'Basic %%%%'],
    ['nothing after the scheme', 'Basic'],
    ['padding only', 'Basic ===='],
    ['bytes that are not UTF-8', `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0xc3]).toString('base64')}`],
  ])('%s -> 401 invalid_client', async (_name, authorization) => {
    const f = form({ grant_type: 'client_credentials', scope: 'identify' });
    const r = await httpFrom(server.url, 'POST', '/api/v10/oauth2/token', { headers: { ...f.headers, authorization }, body: f.body });
    expect(r.status).toBe(401);
    expect(JSON.parse(r.text).error).toBe('invalid_client');
    expect(loud()).toEqual([]);
  });
});

describe('fix 5: the static file handler refuses with 4xx and stays quiet', () => {
  it('serves the game itself', async () => {
    const r = await httpFrom(server.url, 'GET', '/games/demo-game/assets/app.js');
    expect(r.status).toBe(200);
  });

  it('an encoded slash inside the game names the same file (or is refused): never a 5xx, never outside dist', async () => {
    const r = await httpFrom(server.url, 'GET', '/games/demo-game/assets%2fapp.js');
    expect(r.status === 200 ? r.text : r.status).toBe(r.status === 200 ? 'console.log(1)' : 404);
  });

  it.each([
    '/games/demo-game/../secret.txt',
    '/games/demo-game/../../secret.txt',
    '/games/demo-game/%2e%2e/secret.txt',
    '/games/demo-game/%2e%2e%2fsecret.txt',
    '/games/demo-game/..%2fsecret.txt',
    '/games/demo-game/..%5csecret.txt',
    '/games/demo-game/%00',
    '/games/demo-game/index.html%00.txt',
    '/games/demo-game/assets/%00/app.js',
    '/games/demo-game/%ff%fe',
    '/games/demo-game/%',
    '/games/demo-game/.%2e/.%2e/secret.txt',
    '/games/demo-game//etc/passwd',
    '/games/demo-game/%2fetc%2fpasswd',
  ])('%s', async (path) => {
    const before = log.length;
    const r = await httpFrom(server.url, 'GET', path);
    expect([path, r.status >= 400 && r.status < 500]).toEqual([path, true]);
    expect(r.text).not.toContain(SECRET);
    expect(r.text).not.toContain('root:');
    const lines = log.slice(before).map((l) => JSON.parse(l) as { level: number });
    expect(lines.filter((l) => l.level > 20)).toEqual([]);
  });
});

describe('fix 7: public URLs never come from the Host header', () => {
  const forged = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };

  it('the Gateway URL, apiBase and the OIDC issuer ignore Host and X-Forwarded-*', async () => {
    const gateway = await httpFrom(server.url, 'GET', '/api/v10/gateway', { headers: forged });
    expect(JSON.parse(gateway.text).url).toBe(`${server.url.replace('http', 'ws')}/gateway`);
    const config = await httpFrom(server.url, 'GET', '/games/config.json', { headers: forged });
    expect(JSON.parse(config.text).apiBase).toBe(server.url);
    const discovery = await httpFrom(server.url, 'GET', '/.well-known/openid-configuration', { headers: forged });
    expect(discovery.text).not.toContain('evil.example');
    expect(JSON.parse(discovery.text).issuer).toBe(server.url);
    const f = form({ client_id: appId, scope: 'identify' });
    const device = await httpFrom(server.url, 'POST', '/api/v10/oauth2/device/authorize', { headers: { ...forged, ...f.headers }, body: f.body });
    expect(device.text).not.toContain('evil.example');
  });

  it('--public-url sets them all', async () => {
    const configured = await startServer({ port: 0, dataDir: tempDir(), serveSamples: true, samplesDir: gamesDir(), logLevel: 'error', publicUrl: 'https://social.example' });
    try {
      const gateway = await httpFrom(configured.url, 'GET', '/api/v10/gateway', { headers: forged });
      expect(JSON.parse(gateway.text).url).toBe('wss://social.example/gateway');
      const config = await httpFrom(configured.url, 'GET', '/games/config.json');
      expect(JSON.parse(config.text).apiBase).toBe('https://social.example');
      const discovery = JSON.parse((await httpFrom(configured.url, 'GET', '/.well-known/openid-configuration', { headers: forged })).text);
      expect(discovery.issuer).toBe('https://social.example');
      expect(discovery.token_endpoint).toMatch(/^https:\/\/social\.example\//);
      expect(discovery.jwks_uri).toMatch(/^https:\/\/social\.example\//);
    } finally {
      await configured.close();
    }
  });

  it('a public URL with a path or another scheme is refused at start', async () => {
    await expect(startServer({ port: 0, dataDir: tempDir(), serveSamples: false, publicUrl: 'https://social.example/api' })).rejects.toThrow(/origin/);
    await expect(startServer({ port: 0, dataDir: tempDir(), serveSamples: false, publicUrl: 'ftp://social.example' })).rejects.toThrow(/http/);
  });
});
