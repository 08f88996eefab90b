// The inputs of the credential attack run, kept as attacks: each must get the documented error
// body (`{code, message}`), never a 5xx, never a framework's own body or the URL echoed back, and
// must leave nothing written. (The route-by-credential walk is routeAccess.test; NUL characters,
// nonces and flags have their own files.)
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer, webToken } from './harness.ts';

let t: TestServer;
let web: string;
let guildId: string;
let textId: string;
const LONG_ID = '1'.repeat(2000);

beforeAll(async () => {
  t = await startTestServer({ rateLimits: false });
  const owner = await t.guest('attacker');
  web = await webToken(t, owner.userId);
  guildId = (await t.req('POST', '/guilds', { token: web, body: { name: 'Target' } })).body.id;
  textId = (await t.req('GET', `/guilds/${guildId}/channels`, { token: web })).body.find((c: { type: number }) => c.type === 0).id;
});

afterAll(async () => {
  await t?.close();
  cleanupTempDirs();
});

async function raw(method: string, path: string, init: { token?: string; bot?: boolean; body?: BodyInit } = {}): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `${init.bot ? 'Bot' : 'Bearer'} ${init.token}`;
  const res = await fetch(`${t.api}${path}`, { method, headers, ...(init.body ? { body: init.body } : {}) });
  return { status: res.status, text: await res.text() };
}

describe('the credential attack run\'s inputs', () => {
  it('a 2,000-digit path ID answers the documented 404 and does not echo the URL', async () => {
    for (const [method, path] of [['GET', `/guilds/${LONG_ID}`], ['GET', `/lobbies/${LONG_ID}`], ['DELETE', `/channels/${LONG_ID}/messages/${LONG_ID}`]] as const) {
      const r = await raw(method, path, { token: web });
      expect([r.status, JSON.parse(r.text)], path).toEqual([404, { code: 0, message: '404: Not Found' }]);
      expect(r.text).not.toContain(LONG_ID.slice(0, 200));
    }
  });

  it('multipart bodies over the part limits answer 413 40005, and nothing is stored', async () => {
    const before = (await t.req('GET', `/channels/${textId}/messages`, { token: web })).body.length;
    const many = new FormData();
    many.set('payload_json', JSON.stringify({ content: 'eleven files' }));
    for (let i = 0; i < 11; i++) many.set(`files[${i}]`, new Blob(['x']), `f${i}.txt`);
    const r = await raw('POST', `/channels/${textId}/messages`, { token: web, body: many });
    expect([r.status, JSON.parse(r.text)]).toEqual([413, { code: 40005, message: 'Request entity too large' }]);
    expect((await t.req('GET', `/channels/${textId}/messages`, { token: web })).body.length).toBe(before);
  });

  it('a non-member\'s uploads are refused before they are read: four of 10 x 10 MiB grow the process by under 50 MiB', async () => {
    const stranger = await webToken(t, (await t.guest('stranger')).userId);
    const MiB = 1024 * 1024;
    const chunk = Buffer.alloc(MiB, 7);
    // A multipart body written as it goes (never held whole on this side either).
    const upload = () => new Promise<number>((resolve) => {
      const boundary = 'attackboundary';
      const url = new URL(`${t.api}/channels/${textId}/messages`);
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${stranger}`, 'content-type': `multipart/form-data; boundary=${boundary}` } });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', () => undefined);
      void (async () => {
        const write = (b: Buffer | string) => new Promise<void>((done) => (req.destroyed ? done() : req.write(b, () => done())));
        await write(`--${boundary}\r\ncontent-disposition: form-data; name="payload_json"\r\n\r\n{"content":"big"}\r\n`);
        for (let f = 0; f < 10 && !req.destroyed; f++) {
          await write(`--${boundary}\r\ncontent-disposition: form-data; name="files[${f}]"; filename="f${f}.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`);
          for (let m = 0; m < 10 && !req.destroyed; m++) await write(chunk);
          await write('\r\n');
        }
        if (!req.destroyed) req.end(`--${boundary}--\r\n`);
      })();
    });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const statuses = await Promise.all([upload(), upload(), upload(), upload()]);
    clearInterval(sampler);
    expect(statuses).toEqual([403, 403, 403, 403]);
    expect((peak - before) / MiB).toBeLessThan(50);
  });

  it('__proto__ inside a multipart payload_json is refused on every multipart route', async () => {
    const poisoned = '{"content":"x","max_age":60,"__proto__":{"admin":true}}';
    for (const path of [`/channels/${textId}/messages`, `/channels/${textId}/invites`]) {
      const form = new FormData();
      form.set('payload_json', poisoned);
      const r = await raw('POST', path, { token: web, body: form });
      expect(r.status, path).toBe(400);
      expect(JSON.parse(r.text).code, path).toBe(50035);
    }
    expect((await t.req('GET', `/channels/${textId}/invites`, { token: web })).body).toEqual([]);
  });

  it('a game granted guilds alone: the reproduction, as the attack run sent it', async () => {
    const player = await t.guest('player');
    const game = await t.server.store.tokens.issue(player.userId, t.app.id, ['guilds'], 3600);
    const owner = await t.server.store.tokens.issue((await t.req('GET', '/users/@me', { token: web })).body.id, t.app.id, ['guilds'], 3600);
    const r = await t.req('POST', `/guilds/${guildId}/roles`, { token: owner, body: { name: 'game-admin', permissions: '8' } });
    expect([r.status, r.body.code]).toEqual([403, 50001]);
    for (const [method, path] of [['GET', `/guilds/${guildId}/bans`], ['POST', `/guilds/${guildId}/channels`], ['DELETE', `/channels/${textId}`], ['GET', `/channels/${textId}/messages`]] as const) {
      const res = await t.req(method, path, { token: owner, body: method === 'POST' ? { name: 'x', type: 0 } : undefined });
      expect([res.status, res.body.code], path).toEqual([403, 50001]);
    }
    expect((await t.req('GET', '/users/@me/guilds', { token: owner })).body.map((g: { id: string }) => g.id)).toEqual([guildId]);
    expect((await t.req('GET', '/users/@me/guilds', { token: game })).status).toBe(200);
  });
});
